// Primitives behind the standard layers: embedding lookup, dropout, layer norm.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/rng.hpp"
#include "dropout_mask.hpp"
#include "fast_math.hpp"

namespace attn {

// y[..., :] = table[ids[...], :]  (composed: a row selection; its backward scatter-adds)
Var embedding(const Var& table, const IntTensor& ids) {
  if (table.ndim() != 2)
    throw std::invalid_argument("embedding: table must be [V, d], got " + shape_str(table.shape()));
  return index_select(table, 0, ids);
}


void require_dropout_rate(float p, const std::string& op) {
  if (!(p >= 0.0f && p < 1.0f)) throw std::invalid_argument(op + ": the dropout rate must be in [0, 1), got " + std::to_string(p));
}

// y = x * m / (1 - p), m_i ~ Bernoulli(1 - p): the mask is DropoutMask's for one 64-bit seed
// drawn from the run's rng;  dx += dy * m / (1 - p), the mask recomputed from the seed
Var dropout(const Var& x, float p, Rng& rng) {
  require_dropout_rate(p, "dropout");
  if (p == 0.0f) return x;
  require_mask_fits(x.shape(), "dropout");
  const DropoutMask mask(rng.next_u64(), p);
  Tensor y = Tensor::from_shape(x.shape());
  mask.apply(x.value().data(), y.data(), y.size());
  return graph_node(std::move(y), {x}, [mask](Node& n) {
    if (!n.wants(0)) return;
    const auto [dx, beta] = n.parents[0]->grad_target();
    mask.apply(n.grad.data(), dx, n.grad.size(), 0, beta != 0.0f);
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
  auto xhat = std::make_shared<Tensor>(Tensor::from_shape(x.shape()));
  auto inv_sigma = std::make_shared<std::vector<float>>(rows);
  Tensor y = Tensor::from_shape(x.shape());
  const float *gv = gamma.value().data(), *bv = beta.value().data();
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x.value().data() + r * d;
    float *h = xhat->data() + r * d, *yr = y.data() + r * d;
    const float mu = lane_sum(d, [&](auto t, std::size_t j) { return load_as<decltype(t)>(xr + j); }) / static_cast<float>(d);
    const float var = lane_sum(d, [&](auto t, std::size_t j) {
      const auto c = load_as<decltype(t)>(xr + j) - decltype(t)(mu);
      return c * c;
    }) / static_cast<float>(d);
    const float is = 1.0f / std::sqrt(var + eps);
    (*inv_sigma)[r] = is;
    for (std::size_t j = 0; j < d; ++j) {
      h[j] = (xr[j] - mu) * is;
      yr[j] = h[j] * gv[j] + bv[j];
    }
  }
  return graph_node(std::move(y), {x, gamma, beta}, [xhat, inv_sigma, d, rows](Node& n) {
    const float *dy = n.grad.data(), *g = n.parents[1]->value.data(), *h = xhat->data();
    for (std::size_t p = 1; p <= 2; ++p) {  // dgamma += sum_r dy * xhat, dbeta += sum_r dy
      if (!n.wants(p)) continue;
      float* dst = n.parents[p]->grad_buffer().data();
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < d; ++j) dst[j] += dy[r * d + j] * (p == 1 ? h[r * d + j] : 1.0f);
    }
    if (!n.wants(0)) return;
    const auto [dx, beta] = n.parents[0]->grad_target();
    for (std::size_t r = 0; r < rows; ++r) {
      const float *dyr = dy + r * d, *hr = h + r * d;
      const float mean_g = lane_sum(d, [&](auto t, std::size_t j) {
        using T = decltype(t);
        return load_as<T>(dyr + j) * load_as<T>(g + j);
      }) / static_cast<float>(d);
      const float mean_gh = lane_sum(d, [&](auto t, std::size_t j) {
        using T = decltype(t);
        return load_as<T>(dyr + j) * load_as<T>(g + j) * load_as<T>(hr + j);
      }) / static_cast<float>(d);
      float* dxr = dx + r * d;
      const float is = (*inv_sigma)[r];
      for (std::size_t j = 0; j < d; ++j) {  // beta 0: dx is a fresh, unwritten buffer (0 * NaN is NaN)
        const float grad = is * (dyr[j] * g[j] - mean_g - hr[j] * mean_gh);
        dxr[j] = beta == 0.0f ? grad : dxr[j] + grad;
      }
    }
  });
}

}  // namespace attn
