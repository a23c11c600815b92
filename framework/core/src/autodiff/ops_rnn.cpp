// Recurrent primitives: a fused GRU step, and the row selection that gives the RNN
// packed-sequence semantics. Each replaces a dozen small nodes per time step by one.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "fast_math.hpp"

namespace attn {
namespace {

template <class T>
T load_as(const float* p) {
  if constexpr (std::is_same_v<T, float>) return *p; else return T::load_unaligned(p);
}

template <class T>
void store_to(float* p, T v) {
  if constexpr (std::is_same_v<T, float>) *p = v; else v.store_unaligned(p);
}

// The forward of gru_step for one row's elements [j, j + width of T): gates r, z, n into
// `saved`, h' into `y` (x, p: the row's projected input and state; h, y: the row's state).
template <class T>
void gru_forward(const float* x, const float* p, const float* h, float* saved, float* y, std::size_t hidden, std::size_t j) {
  const T r = fast_sigmoid(load_as<T>(x + j) + load_as<T>(p + j));
  const T z = fast_sigmoid(load_as<T>(x + hidden + j) + load_as<T>(p + hidden + j));
  const T n = fast_tanh(load_as<T>(x + 2 * hidden + j) + r * load_as<T>(p + 2 * hidden + j));
  store_to(saved + j, r);
  store_to(saved + hidden + j, z);
  store_to(saved + 2 * hidden + j, n);
  store_to(y + j, n + z * (load_as<T>(h + j) - n));  // (1 - z) n + z h
}

// dst = g into a fresh buffer (beta 0: its contents are undefined), dst += g otherwise
inline void put(float* dst, std::size_t i, float g, float beta) { dst[i] = beta == 0.0f ? g : dst[i] + g; }

}  // namespace

// r = sigmoid(xp_r + hp_r),  z = sigmoid(xp_z + hp_z),  n = tanh(xp_n + r hp_n)  (fast_math.hpp's
// tanh, a few ulp from std::tanh, and sigmoid through it)
// h' = (1 - z) n + z h
// With g = dh':  a_n = g (1 - z)(1 - n^2),  a_z = g (h - n) z (1 - z),  a_r = a_n hp_n r (1 - r);
// dxp += [a_r, a_z, a_n],  dhp += [a_r, a_z, a_n r],  dh += g z
Var gru_step(const Var& xp, const Var& hp, const Var& h) {
  if (xp.ndim() != 2 || hp.shape() != xp.shape() || h.ndim() != 2 || h.dim(0) != xp.dim(0) || 3 * h.dim(1) != xp.dim(1))
    throw std::invalid_argument("gru_step: expected projected input and state [B, 3h] and state [B, h], got " +
                                shape_str(xp.shape()) + ", " + shape_str(hp.shape()) + ", " + shape_str(h.shape()));
  const std::size_t batch = h.dim(0), hidden = h.dim(1), width = 3 * hidden;
  Tensor out = Tensor::from_shape({batch, hidden});
  Tensor gates = Tensor::from_shape({batch, width});  // r, z, n, kept for the backward
  const float *x = xp.value().data(), *p = hp.value().data(), *hv = h.value().data();
  float *y = out.data(), *saved = gates.data();
  for (std::size_t b = 0; b < batch; ++b) {
    const std::size_t row = b * width;
    std::size_t j = 0;
    for (; j + lanes <= hidden; j += lanes)
      gru_forward<Batch>(x + row, p + row, hv + b * hidden, saved + row, y + b * hidden, hidden, j);
    for (; j < hidden; ++j)
      gru_forward<float>(x + row, p + row, hv + b * hidden, saved + row, y + b * hidden, hidden, j);
  }
  return graph_node(std::move(out), {xp, hp, h}, [gates = std::move(gates), batch, hidden, width](Node& node) {
    const float* g = node.grad.data();
    const float* saved = gates.data();
    const float* p = node.parents[1]->value.data();
    const float* hv = node.parents[2]->value.data();
    float *dx = nullptr, *dp = nullptr, *dh = nullptr;
    float beta_x = 0, beta_p = 0, beta_h = 0;
    if (node.wants(0)) std::tie(dx, beta_x) = node.parents[0]->grad_target();
    if (node.wants(1)) std::tie(dp, beta_p) = node.parents[1]->grad_target();
    if (node.wants(2)) std::tie(dh, beta_h) = node.parents[2]->grad_target();
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t j = 0; j < hidden; ++j) {
        const std::size_t row = b * width, i = b * hidden + j;
        const float r = saved[row + j], z = saved[row + hidden + j], n = saved[row + 2 * hidden + j];
        const float a_n = g[i] * (1.0f - z) * (1.0f - n * n);
        const float a_z = g[i] * (hv[i] - n) * z * (1.0f - z);
        const float a_r = a_n * p[row + 2 * hidden + j] * r * (1.0f - r);
        if (dx) {
          put(dx, row + j, a_r, beta_x);
          put(dx, row + hidden + j, a_z, beta_x);
          put(dx, row + 2 * hidden + j, a_n, beta_x);
        }
        if (dp) {
          put(dp, row + j, a_r, beta_p);
          put(dp, row + hidden + j, a_z, beta_p);
          put(dp, row + 2 * hidden + j, a_n * r, beta_p);
        }
        if (dh) put(dh, i, g[i] * z, beta_h);
      }
  });
}

// y[b] = keep[b] ? a[b] : c[b] (c undefined: zeros);  da[b] += dy[b] where kept, dc[b] += dy[b] elsewhere
Var rows_where(const std::vector<bool>& keep, const Var& a, const Var& c) {
  if (a.ndim() == 0 || keep.size() != a.dim(0) || (c.defined() && c.shape() != a.shape()))
    throw std::invalid_argument("rows_where: " + std::to_string(keep.size()) + " flags for rows of " +
                                shape_str(a.shape()) + (c.defined() ? " and " + shape_str(c.shape()) : std::string()));
  const std::size_t rows = keep.size(), per = a.value().size() / std::max<std::size_t>(rows, 1);
  Tensor y = Tensor::from_shape(a.shape());
  for (std::size_t b = 0; b < rows; ++b) {
    float* dst = y.data() + b * per;
    if (keep[b])
      std::copy_n(a.value().data() + b * per, per, dst);
    else if (c.defined())
      std::copy_n(c.value().data() + b * per, per, dst);
    else
      std::fill_n(dst, per, 0.0f);
  }
  std::vector<Var> parents{a};
  if (c.defined()) parents.push_back(c);
  return graph_node(std::move(y), parents, [keep, rows, per](Node& node) {
    const float* g = node.grad.data();
    for (std::size_t i = 0; i < node.parents.size(); ++i) {
      if (!node.wants(i)) continue;
      const bool takes_kept = i == 0;  // parent 0 gets the kept rows, parent 1 the others
      const auto [dst, beta] = node.parents[i]->grad_target();
      for (std::size_t b = 0; b < rows; ++b)
        for (std::size_t k = 0; k < per; ++k)
          put(dst, b * per + k, keep[b] == takes_kept ? g[b * per + k] : 0.0f, beta);
    }
  });
}

}  // namespace attn
