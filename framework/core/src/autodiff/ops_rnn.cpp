// Recurrent primitives: fused GRU, LSTM and Elman steps, and the row selection that gives the
// RNN packed-sequence semantics. Each replaces a dozen small nodes per time step by one or two.
#include <algorithm>
#include <memory>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "fast_math.hpp"

namespace attn {
namespace {

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

// The forward of lstm_step for one row's elements [j, j + width of T): sigmoid(i), sigmoid(f),
// tanh(g), sigmoid(o) into `saved`, c' into `c_out`, tanh(c') into `tanh_c`, h' into `h_out`.
template <class T>
void lstm_forward(const float* x, const float* p, const float* c, float* saved, float* c_out, float* tanh_c,
                  float* h_out, std::size_t hidden, std::size_t j) {
  auto pre = [&](std::size_t gate) { return load_as<T>(x + gate * hidden + j) + load_as<T>(p + gate * hidden + j); };
  const T i = fast_sigmoid(pre(0)), f = fast_sigmoid(pre(1)), g = fast_tanh(pre(2)), o = fast_sigmoid(pre(3));
  const T c2 = f * load_as<T>(c + j) + i * g, t = fast_tanh(c2);
  store_to(saved + j, i);
  store_to(saved + hidden + j, f);
  store_to(saved + 2 * hidden + j, g);
  store_to(saved + 3 * hidden + j, o);
  store_to(c_out + j, c2);
  store_to(tanh_c + j, t);
  store_to(h_out + j, o * t);
}

// dst[i..] = g into a fresh buffer (beta 0: its contents are undefined), dst[i..] += g otherwise
// (T: a float or a vector of them)
template <class T>
void put(float* dst, std::size_t i, T g, float beta) {
  store_to(dst + i, beta == 0.0f ? g : load_as<T>(dst + i) + g);
}

void check_step(const char* name, const Var& xp, const Var& hp, const Var& state, std::size_t gates) {
  if (xp.ndim() != 2 || hp.shape() != xp.shape() || state.ndim() != 2 || state.dim(0) != xp.dim(0) ||
      gates * state.dim(1) != xp.dim(1))
    throw std::invalid_argument(std::string(name) + ": expected projected input and state [B, " + std::to_string(gates) +
                                "h] and state [B, h], got " + shape_str(xp.shape()) + ", " + shape_str(hp.shape()) + ", " +
                                shape_str(state.shape()));
}

// Gradient targets of the projected input and state (null where not wanted) and their betas.
struct GateGrads {
  float *dx = nullptr, *dp = nullptr;
  float beta_x = 0, beta_p = 0;

  explicit GateGrads(Node& node) {
    if (node.wants(0)) std::tie(dx, beta_x) = node.parents[0]->grad_target();
    if (node.wants(1)) std::tie(dp, beta_p) = node.parents[1]->grad_target();
  }
  // d(pre-activation) of element(s) i of [B, G h]: a_x to the input side, a_p to the state side
  template <class T>
  void add(std::size_t i, T a_x, T a_p) const {
    if (dx) put(dx, i, a_x, beta_x);
    if (dp) put(dp, i, a_p, beta_p);
  }
  template <class T>
  void add(std::size_t i, T a) const { add(i, a, a); }
};

// The gradient target of the state (parent 2) and its beta, or null when it wants none.
std::pair<float*, float> state_grad(Node& node) {
  return node.wants(2) ? node.parents[2]->grad_target() : std::pair<float*, float>{nullptr, 0.0f};
}

}  // namespace

// r = sigmoid(xp_r + hp_r),  z = sigmoid(xp_z + hp_z),  n = tanh(xp_n + r hp_n)  (fast_math.hpp's
// tanh, a few ulp from std::tanh, and sigmoid through it)
// h' = (1 - z) n + z h
// With g = dh':  a_n = g (1 - z)(1 - n^2),  a_z = g (h - n) z (1 - z),  a_r = a_n hp_n r (1 - r);
// dxp += [a_r, a_z, a_n],  dhp += [a_r, a_z, a_n r],  dh += g z
Var gru_step(const Var& xp, const Var& hp, const Var& h) {
  check_step("gru_step", xp, hp, h, 3);
  const std::size_t batch = h.dim(0), hidden = h.dim(1), width = 3 * hidden;
  Tensor out = Tensor::from_shape({batch, hidden});
  Tensor gates = Tensor::from_shape({batch, width});  // r, z, n, kept for the backward
  const float *x = xp.value().data(), *p = hp.value().data(), *hv = h.value().data();
  float *y = out.data(), *saved = gates.data();
  for (std::size_t b = 0; b < batch; ++b) {
    const std::size_t row = b * width;
    for_lanes(hidden, [&](auto tag, std::size_t j) {
      gru_forward<decltype(tag)>(x + row, p + row, hv + b * hidden, saved + row, y + b * hidden, hidden, j);
    });
  }
  return graph_node(std::move(out), {xp, hp, h}, [gates = std::move(gates), batch, hidden, width](Node& node) {
    const GateGrads grads(node);
    const float *g = node.grad.data(), *saved = gates.data(), *p = node.parents[1]->value.data(),
                *hv = node.parents[2]->value.data();
    float *dh, beta_h;
    std::tie(dh, beta_h) = state_grad(node);
    for (std::size_t b = 0; b < batch; ++b)
      for_lanes(hidden, [&](auto tag, std::size_t j) {
        using T = decltype(tag);
        const std::size_t row = b * width + j, i = b * hidden + j;
        const T one(1.0f), gi = load_as<T>(g + i), r = load_as<T>(saved + row), z = load_as<T>(saved + row + hidden),
                n = load_as<T>(saved + row + 2 * hidden);
        const T a_n = gi * (one - z) * (one - n * n);
        const T a_z = gi * (load_as<T>(hv + i) - n) * z * (one - z);
        const T a_r = a_n * load_as<T>(p + row + 2 * hidden) * r * (one - r);
        grads.add(row, a_r);
        grads.add(row + hidden, a_z);
        grads.add(row + 2 * hidden, a_n, a_n * r);
        if (dh) put(dh, i, gi * z, beta_h);
      });
  });
}

// i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the blocks of xp + hp;  c' = f c + i g;
// h' = o tanh(c'). Two nodes, c' and h' (h' reads c', so dc' collects both paths):
//   from dh' = u:  a_o = u tanh(c') o (1 - o),  dc' += u o (1 - tanh(c')^2)
//   from dc' = v:  a_i = v g i (1 - i),  a_f = v c f (1 - f),  a_g = v i (1 - g^2),  dc += v f
// dxp += a and dhp += a for each gate's block (zeros for the other node's blocks).
LstmState lstm_step(const Var& xp, const Var& hp, const Var& c) {
  check_step("lstm_step", xp, hp, c, 4);
  const std::size_t batch = c.dim(0), hidden = c.dim(1), width = 4 * hidden;
  auto saved = std::make_shared<Tensor>(Tensor::from_shape({batch, width}));  // i, f, g, o
  auto tanh_c = std::make_shared<Tensor>(Tensor::from_shape({batch, hidden}));
  Tensor c_out = Tensor::from_shape({batch, hidden}), h_out = Tensor::from_shape({batch, hidden});
  const float *x = xp.value().data(), *p = hp.value().data(), *cv = c.value().data();
  for (std::size_t b = 0; b < batch; ++b) {
    const std::size_t row = b * width, at = b * hidden;
    for_lanes(hidden, [&](auto tag, std::size_t j) {
      lstm_forward<decltype(tag)>(x + row, p + row, cv + at, saved->data() + row, c_out.data() + at,
                                  tanh_c->data() + at, h_out.data() + at, hidden, j);
    });
  }
  Var c_next = graph_node(std::move(c_out), {xp, hp, c}, [saved, batch, hidden, width](Node& node) {
    const GateGrads grads(node);
    const float *v = node.grad.data(), *s = saved->data(), *cv = node.parents[2]->value.data();
    float *dc, beta_c;
    std::tie(dc, beta_c) = state_grad(node);
    for (std::size_t b = 0; b < batch; ++b)
      for_lanes(hidden, [&](auto tag, std::size_t j) {
        using T = decltype(tag);
        const std::size_t row = b * width + j, k = b * hidden + j;
        const T one(1.0f), vk = load_as<T>(v + k), i = load_as<T>(s + row), f = load_as<T>(s + row + hidden),
                g = load_as<T>(s + row + 2 * hidden);
        grads.add(row, vk * g * i * (one - i));
        grads.add(row + hidden, vk * load_as<T>(cv + k) * f * (one - f));
        grads.add(row + 2 * hidden, vk * i * (one - g * g));
        grads.add(row + 3 * hidden, T(0.0f));
        if (dc) put(dc, k, vk * f, beta_c);
      });
  });
  Var h_next = graph_node(std::move(h_out), {xp, hp, c_next}, [saved, tanh_c, batch, hidden, width](Node& node) {
    const GateGrads grads(node);
    const float *u = node.grad.data(), *s = saved->data(), *t = tanh_c->data();
    float *dc, beta_c;
    std::tie(dc, beta_c) = state_grad(node);
    for (std::size_t b = 0; b < batch; ++b)
      for_lanes(hidden, [&](auto tag, std::size_t j) {
        using T = decltype(tag);
        const std::size_t row = b * width + j, k = b * hidden + j;
        const T one(1.0f), uk = load_as<T>(u + k), o = load_as<T>(s + row + 3 * hidden), tk = load_as<T>(t + k);
        for (std::size_t gate = 0; gate < 3; ++gate) grads.add(row + gate * hidden, T(0.0f));
        grads.add(row + 3 * hidden, uk * tk * o * (one - o));
        if (dc) put(dc, k, uk * o * (one - tk * tk), beta_c);
      });
  });
  return {std::move(h_next), std::move(c_next)};
}

// h' = tanh(xp + hp);  with g = dh':  dxp += g (1 - h'^2),  dhp += g (1 - h'^2)
Var rnn_step(const Var& xp, const Var& hp) {
  check_step("rnn_step", xp, hp, xp, 1);
  Tensor out = Tensor::from_shape(xp.shape());
  const float *x = xp.value().data(), *p = hp.value().data();
  float* y = out.data();
  for_lanes(out.size(), [&](auto tag, std::size_t j) {
    using T = decltype(tag);
    store_to(y + j, fast_tanh(load_as<T>(x + j) + load_as<T>(p + j)));
  });
  return graph_node(std::move(out), {xp, hp}, [](Node& node) {
    const GateGrads grads(node);
    const float *g = node.grad.data(), *y = node.value.data();
    for_lanes(node.value.size(), [&](auto tag, std::size_t i) {
      using T = decltype(tag);
      const T yi = load_as<T>(y + i);
      grads.add(i, load_as<T>(g + i) * (T(1.0f) - yi * yi));
    });
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
