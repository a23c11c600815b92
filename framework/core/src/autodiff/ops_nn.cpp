// Primitives behind the standard layers: embedding lookup, dropout, layer norm.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>
#include <stdexcept>
#include <string>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/parallel.hpp"
#include "attnlab/rng.hpp"
#include "column_sums.hpp"
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

namespace {

// out = in * m / (1 - p) (or out += that) over n elements, in chunks over the cores: each
// element's mask bit comes from its index alone, so the split changes nothing.
void apply_in_chunks(const DropoutMask& mask, const float* in, float* out, std::size_t n, bool add) {
  parallel_for(n, floats_per_chunk, [&](std::size_t first, std::size_t last) {
    mask.apply(in + first, out + first, last - first, first, add);
  });
}

}  // namespace

// y = x * m / (1 - p), m_i ~ Bernoulli(1 - p): the mask is DropoutMask's for one 64-bit seed
// drawn from the run's rng;  dx += dy * m / (1 - p), the mask recomputed from the seed
Var dropout(const Var& x, float p, Rng& rng) {
  require_dropout_rate(p, "dropout");
  if (p == 0.0f) return x;
  require_mask_fits(x.shape(), "dropout");
  const DropoutMask mask(rng.next_u64(), p);
  Tensor y = Tensor::from_shape(x.shape());
  apply_in_chunks(mask, x.value().data(), y.data(), y.size(), false);
  return graph_node(std::move(y), {x}, [mask](Node& n) {
    if (!n.wants(0)) return;
    const auto [dx, beta] = n.parents[0]->grad_target();
    apply_in_chunks(mask, n.grad.data(), dx, n.grad.size(), beta != 0.0f);
  }, reads_parents({}));
}

namespace {

// dx = (g - mean(g) - xhat * mean(g * xhat)) / sigma over one row of d, g = dy * gamma (beta 0:
// dx is a fresh, unwritten buffer, so it is written, not added to: 0 * NaN is NaN).
void layer_norm_row_backward(const float* dy, const float* gamma, const float* xhat, float inv_sigma, float* dx, std::size_t d,
                             float beta) {
  const float mean_g = lane_sum(d, [&](auto t, std::size_t j) {
    using T = decltype(t);
    return load_as<T>(dy + j) * load_as<T>(gamma + j);
  }) / static_cast<float>(d);
  const float mean_gh = lane_sum(d, [&](auto t, std::size_t j) {
    using T = decltype(t);
    return load_as<T>(dy + j) * load_as<T>(gamma + j) * load_as<T>(xhat + j);
  }) / static_cast<float>(d);
  for (std::size_t j = 0; j < d; ++j) {
    const float grad = inv_sigma * (dy[j] * gamma[j] - mean_g - xhat[j] * mean_gh);
    dx[j] = beta == 0.0f ? grad : dx[j] + grad;
  }
}

// One row of d: xhat = (x - mu) / sigma, y = xhat * gamma + beta; returns 1 / sigma.
float layer_norm_row(const float* x, const float* gamma, const float* beta, float eps, float* xhat, float* y, std::size_t d) {
  const float mu = lane_sum(d, [&](auto t, std::size_t j) { return load_as<decltype(t)>(x + j); }) / static_cast<float>(d);
  const float var = lane_sum(d, [&](auto t, std::size_t j) {
    const auto c = load_as<decltype(t)>(x + j) - decltype(t)(mu);
    return c * c;
  }) / static_cast<float>(d);
  const float inv_sigma = 1.0f / std::sqrt(var + eps);
  for (std::size_t j = 0; j < d; ++j) {
    xhat[j] = (x[j] - mu) * inv_sigma;
    y[j] = xhat[j] * gamma[j] + beta[j];
  }
  return inv_sigma;
}

// The rows [r0, r1) of layer_norm of x, or of x + addend (the sum made one row at a time).
void layer_norm_rows(const float* x, const float* addend, const float* gamma, const float* beta, float eps, std::size_t d,
                     std::size_t r0, std::size_t r1, float* xhat, float* inv_sigma, float* y) {
  std::vector<float> sum(addend ? d : 0);
  for (std::size_t r = r0; r < r1; ++r) {
    const float* xr = x + r * d;
    if (addend) {
      for (std::size_t j = 0; j < d; ++j) sum[j] = xr[j] + addend[r * d + j];
      xr = sum.data();
    }
    inv_sigma[r] = layer_norm_row(xr, gamma, beta, eps, xhat + r * d, y + r * d, d);
  }
}

// What layer_norm's backward reads: dy, gamma, xhat and 1 / sigma per row.
struct LayerNormSaved {
  const float *dy, *gamma, *xhat, *inv_sigma;
  std::size_t d;
};

// Each input's gradient for rows [r0, r1) (with two, the row is computed once and written or
// added to each in turn: x and y one node gives (fresh, 0) then (same, 1)).
void layer_norm_backward_rows(const LayerNormSaved& s, std::size_t r0, std::size_t r1,
                              const std::vector<std::pair<float*, float>>& targets) {
  const std::size_t d = s.d;
  std::vector<float> row(targets.size() > 1 ? d : 0);
  for (std::size_t r = r0; r < r1; ++r) {
    const float *dyr = s.dy + r * d, *hr = s.xhat + r * d;
    if (targets.size() == 1) {
      layer_norm_row_backward(dyr, s.gamma, hr, s.inv_sigma[r], targets[0].first + r * d, d, targets[0].second);
      continue;
    }
    layer_norm_row_backward(dyr, s.gamma, hr, s.inv_sigma[r], row.data(), d, 0.0f);
    for (const auto& [dx, beta] : targets)
      for (std::size_t j = 0; j < d; ++j) dx[r * d + j] = beta == 0.0f ? row[j] : dx[r * d + j] + row[j];
  }
}

// layer_norm's backward: the inputs' gradients in chunks of rows, then dgamma and dbeta, sums
// over the rows (column_sums.hpp).
void layer_norm_backward(Node& n, const LayerNormSaved& s, std::size_t rows, std::size_t inputs) {
  std::vector<std::pair<float*, float>> targets;
  for (std::size_t i = 0; i < inputs; ++i)
    if (n.wants(i)) targets.push_back(n.parents[i]->grad_target());
  if (!targets.empty())
    parallel_for(rows, rows_per_chunk(s.d), [&](std::size_t r0, std::size_t r1) { layer_norm_backward_rows(s, r0, r1, targets); });
  if (n.wants(inputs))
    add_column_sums(rows, s.d, n.parents[inputs]->grad_buffer().data(),
                    [&](std::size_t r, std::size_t j) { return s.dy[r * s.d + j] * s.xhat[r * s.d + j]; });
  if (n.wants(inputs + 1))
    add_column_sums(rows, s.d, n.parents[inputs + 1]->grad_buffer().data(), [&](std::size_t r, std::size_t j) { return s.dy[r * s.d + j]; });
}

// layer_norm of x, or of x + addend (the sum made one row at a time, never stored): parents
// (x, gamma, beta) or (x, addend, gamma, beta). The sum's gradient goes to x and to the addend.
Var layer_norm_node(const Var& x, const Var* addend, const Var& gamma, const Var& beta, float eps, const char* op) {
  const std::size_t d = x.shape().back();
  if (gamma.shape() != Shape{d} || beta.shape() != Shape{d})
    throw std::invalid_argument(std::string(op) + ": gamma and beta must be [" + std::to_string(d) + "] for input " +
                                shape_str(x.shape()) + ", got " + shape_str(gamma.shape()) + " and " + shape_str(beta.shape()));
  if (addend && addend->shape() != x.shape())
    throw std::invalid_argument(std::string(op) + ": the two inputs must have one shape, got " + shape_str(x.shape()) +
                                " and " + shape_str(addend->shape()));
  const std::size_t rows = x.value().size() / std::max<std::size_t>(d, 1);
  auto xhat = std::make_shared<Tensor>(Tensor::from_shape(x.shape()));
  auto inv_sigma = std::make_shared<std::vector<float>>(rows);
  Tensor y = Tensor::from_shape(x.shape());
  parallel_for(rows, rows_per_chunk(d), [&](std::size_t r0, std::size_t r1) {
    layer_norm_rows(x.value().data(), addend ? addend->value().data() : nullptr, gamma.value().data(), beta.value().data(), eps,
                    d, r0, r1, xhat->data(), inv_sigma->data(), y.data());
  });
  const std::size_t inputs = addend ? 2 : 1;
  std::vector<Var> parents{x};
  if (addend) parents.push_back(*addend);
  parents.push_back(gamma);
  parents.push_back(beta);
  return graph_node(std::move(y), std::move(parents), [xhat, inv_sigma, d, rows, inputs](Node& n) {
    layer_norm_backward(n, {n.grad.data(), n.parents[inputs]->value.data(), xhat->data(), inv_sigma->data(), d}, rows, inputs);
  }, reads_parents({inputs}));
}

}  // namespace

// y = xhat * gamma + beta, xhat = (x - mu) / sigma, sigma = sqrt(var + eps) over the last axis;
// dgamma += sum dy*xhat,  dbeta += sum dy,  dx = (g - mean(g) - xhat * mean(g*xhat)) / sigma, g = dy*gamma
Var layer_norm(const Var& x, const Var& gamma, const Var& beta, float eps) {
  return layer_norm_node(x, nullptr, gamma, beta, eps, "layer_norm");
}

// layer_norm(x + y): the sum's gradient, layer_norm's dx, goes to both x and y.
Var add_layer_norm(const Var& x, const Var& y, const Var& gamma, const Var& beta, float eps) {
  return layer_norm_node(x, &y, gamma, beta, eps, "add_layer_norm");
}

}  // namespace attn
