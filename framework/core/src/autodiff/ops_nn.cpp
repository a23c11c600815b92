// Primitives behind the standard layers: embedding lookup, dropout, layer norm.
#include <cmath>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/rng.hpp"

namespace attn {

// y[..., :] = table[ids[...], :]  (composed: a row selection; its backward scatter-adds)
Var embedding(const Var& table, const IntTensor& ids) {
  if (table.ndim() != 2)
    throw std::invalid_argument("embedding: table must be [V, d], got " + shape_str(table.shape()));
  return index_select(table, 0, ids);
}

// y = x * m / (1 - p), m_i ~ Bernoulli(1 - p) drawn from the run's rng;  dx += dy * m / (1 - p)
Var dropout(const Var& x, float p, Rng& rng) {
  if (!(p >= 0.0f && p < 1.0f))
    throw std::invalid_argument("dropout: p must be in [0, 1), got " + std::to_string(p));
  if (p == 0.0f) return x;
  Tensor mask = Tensor::from_shape(x.shape());
  const float keep_scale = 1.0f / (1.0f - p);
  for (float& m : mask) m = rng.uniform() >= p ? keep_scale : 0.0f;
  Tensor y = x.value() * mask;
  return graph_node(std::move(y), {x}, [mask = std::move(mask)](Node& n) {
    n.accumulate(0, n.grad * mask);
  });
}

// y = xhat * gamma + beta, xhat = (x - mu) / sigma, sigma = sqrt(var + eps) over the last axis;
// dgamma += sum dy*xhat,  dbeta += sum dy,  dx = (g - mean(g) - xhat * mean(g*xhat)) / sigma, g = dy*gamma
Var layer_norm(const Var& x, const Var& gamma, const Var& beta, float eps) {
  const std::size_t d = x.shape().back();
  if (gamma.shape() != Shape{d} || beta.shape() != Shape{d})
    throw std::invalid_argument("layer_norm: gamma and beta must be [" + std::to_string(d) +
                                "] for input " + shape_str(x.shape()) + ", got " +
                                shape_str(gamma.shape()) + " and " + shape_str(beta.shape()));
  const std::size_t rows = x.value().size() / std::max<std::size_t>(d, 1);
  Tensor xhat = Tensor::from_shape(x.shape());
  Tensor inv_sigma = Tensor::from_shape({rows});
  Tensor y = Tensor::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x.value().data() + r * d;
    float mu = 0.0f, var = 0.0f;
    for (std::size_t j = 0; j < d; ++j) mu += xr[j];
    mu /= static_cast<float>(d);
    for (std::size_t j = 0; j < d; ++j) var += (xr[j] - mu) * (xr[j] - mu);
    var /= static_cast<float>(d);
    const float is = 1.0f / std::sqrt(var + eps);
    inv_sigma(r) = is;
    for (std::size_t j = 0; j < d; ++j) {
      const float h = (xr[j] - mu) * is;
      xhat.data()[r * d + j] = h;
      y.data()[r * d + j] = h * gamma.value()(j) + beta.value()(j);
    }
  }
  return graph_node(std::move(y), {x, gamma, beta},
                [xhat = std::move(xhat), inv_sigma = std::move(inv_sigma), d, rows](Node& n) {
    const float* dy = n.grad.data();
    const float* g = n.parents[1]->value.data();
    if (n.wants(1) || n.wants(2)) {
      float* dgamma = n.parents[1]->grad_buffer().data();
      float* dbeta = n.parents[2]->grad_buffer().data();
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < d; ++j) {
          dgamma[j] += dy[r * d + j] * xhat.data()[r * d + j];
          dbeta[j] += dy[r * d + j];
        }
    }
    if (!n.wants(0)) return;
    float* dx = n.parents[0]->grad_buffer().data();
    for (std::size_t r = 0; r < rows; ++r) {
      float mean_g = 0.0f, mean_gh = 0.0f;
      for (std::size_t j = 0; j < d; ++j) {
        const float gj = dy[r * d + j] * g[j];
        mean_g += gj;
        mean_gh += gj * xhat.data()[r * d + j];
      }
      mean_g /= static_cast<float>(d);
      mean_gh /= static_cast<float>(d);
      for (std::size_t j = 0; j < d; ++j)
        dx[r * d + j] += inv_sigma(r) * (dy[r * d + j] * g[j] - mean_g - xhat.data()[r * d + j] * mean_gh);
    }
  });
}

}  // namespace attn
