// Elementwise primitives. Binary ops broadcast like numpy; Node::accumulate sums a broadcast
// gradient back down to each parent's shape.
#include <cmath>
#include <type_traits>

#include <xtensor/xmath.hpp>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/parallel.hpp"
#include "fast_math.hpp"

namespace attn {

// y = a + b;  da += dy,  db += dy
Var add(const Var& a, const Var& b) {
  return graph_node(a.value() + b.value(), {a, b}, [](Node& n) {
    n.accumulate(0, n.grad);
    n.accumulate(1, n.grad);
  }, reads_parents({}));
}

// y = a - b;  da += dy,  db -= dy
Var sub(const Var& a, const Var& b) {
  return graph_node(a.value() - b.value(), {a, b}, [](Node& n) {
    n.accumulate(0, n.grad);
    if (n.wants(1)) n.accumulate(1, -n.grad);
  }, reads_parents({}));
}

// y = a * b;  da += dy * b,  db += dy * a
Var mul(const Var& a, const Var& b) {
  return graph_node(a.value() * b.value(), {a, b}, [](Node& n) {
    if (n.wants(0)) n.accumulate(0, n.grad * n.parents[1]->value);
    if (n.wants(1)) n.accumulate(1, n.grad * n.parents[0]->value);
  }, reads_parents({0, 1}));
}

// y = a / b;  da += dy / b,  db -= dy * y / b
Var div(const Var& a, const Var& b) {
  return graph_node(a.value() / b.value(), {a, b}, [](Node& n) {
    const Tensor& b = n.parents[1]->value;
    if (n.wants(0)) n.accumulate(0, n.grad / b);
    if (n.wants(1)) n.accumulate(1, -n.grad * n.value / b);
  });
}

// y = s * x;  dx += s * dy
Var scale(const Var& x, float s) {
  return graph_node(s * x.value(), {x}, [s](Node& n) { n.accumulate(0, s * n.grad); }, reads_parents({}));
}

// y = x + s;  dx += dy
Var add_scalar(const Var& x, float s) {
  return graph_node(x.value() + s, {x}, [](Node& n) { n.accumulate(0, n.grad); }, reads_parents({}));
}

// y = tanh(x);  dx += dy * (1 - y^2)
Var tanh(const Var& x) {
  return graph_node(xt::tanh(x.value()), {x},
                [](Node& n) { n.accumulate(0, n.grad * (1.0f - n.value * n.value)); }, reads_parents({}, true));
}

// y = 1 / (1 + e^-x);  dx += dy * y * (1 - y)
Var sigmoid(const Var& x) {
  return graph_node(1.0f / (1.0f + xt::exp(-x.value())), {x},
                [](Node& n) { n.accumulate(0, n.grad * n.value * (1.0f - n.value)); }, reads_parents({}, true));
}

// y = max(x, 0);  dx += dy * [y > 0] ([y > 0] = [x > 0]). One vector pass each way, the
// gradient written straight into x's; a NaN stays NaN (xtensor's maximum made it 0).
Var relu(const Var& x) {
  Tensor y = Tensor::from_shape(x.shape());
  relu_row(x.value().data(), y.data(), y.size());
  return graph_node(std::move(y), {x}, [](Node& n) {
    if (!n.wants(0)) return;
    const auto [dx, beta] = n.parents[0]->grad_target();
    relu_row_backward(n.value.data(), n.grad.data(), dx, n.value.size(), beta);
  }, reads_parents({}, true));
}

// y = x for x > 0, slope * x otherwise (LeakyReLU);  dx += dy * (x > 0 ? 1 : slope)
Var leaky_relu(const Var& x, float slope) {
  Tensor y = Tensor::from_shape(x.shape());
  const float* in = x.value().data();
  for (std::size_t i = 0; i < y.size(); ++i) y.data()[i] = in[i] > 0.0f ? in[i] : slope * in[i];
  return graph_node(std::move(y), {x}, [slope](Node& n) {
    if (!n.wants(0)) return;
    const Tensor& x = n.parents[0]->value;
    Tensor dx = Tensor::from_shape(x.shape());
    for (std::size_t i = 0; i < dx.size(); ++i) dx.data()[i] = n.grad.data()[i] * (x.data()[i] > 0.0f ? 1.0f : slope);
    n.accumulate(0, std::move(dx));
  });
}

// y = x for x > 0, e^x - 1 otherwise (ELU, alpha 1);  dx += dy * (x > 0 ? 1 : y + 1)
Var elu(const Var& x) {
  Tensor y = Tensor::from_shape(x.shape());
  const float* in = x.value().data();
  for (std::size_t i = 0; i < y.size(); ++i) y.data()[i] = in[i] > 0.0f ? in[i] : std::expm1(in[i]);
  return graph_node(std::move(y), {x}, [](Node& n) {
    if (!n.wants(0)) return;
    const Tensor& x = n.parents[0]->value;
    Tensor dx = Tensor::from_shape(x.shape());
    for (std::size_t i = 0; i < dx.size(); ++i) dx.data()[i] = n.grad.data()[i] * (x.data()[i] > 0.0f ? 1.0f : n.value.data()[i] + 1.0f);
    n.accumulate(0, std::move(dx));
  });
}

namespace {

// erf of a float or of a vector of them.
float erf_of(float x) { return std::erf(x); }
Batch erf_of(const Batch& x) { return xsimd::erf(x); }
float exp_of(float x) { return std::exp(x); }
Batch exp_of(const Batch& x) { return xsimd::exp(x); }

// f(T{}, i) for the elements i of [0, n): in chunks over the cores (attnlab/parallel.hpp), each
// by vectors then single floats (for_lanes). Chunks are whole vectors, so an element takes the
// vector path or the scalar one whatever the split.
template <class F>
void elementwise(std::size_t n, F&& f) {
  parallel_for(n, floats_per_chunk, [&](std::size_t first, std::size_t last) {
    for_lanes(last - first, [&](auto zero, std::size_t j) { f(zero, first + j); });
  });
}

}  // namespace

// y = x Phi(x) = x (1 + erf(x / sqrt 2)) / 2 (exact GELU, PyTorch's nn.GELU());
// dx += dy (Phi(x) + x phi(x)), phi(x) = e^(-x^2/2) / sqrt(2 pi)
Var gelu(const Var& x) {
  Tensor y = Tensor::from_shape(x.shape());
  const float* in = x.value().data();
  float* out = y.data();
  elementwise(y.size(), [&](auto zero, std::size_t i) {
    using T = decltype(zero);
    const T v = load_as<T>(in + i);
    store_to(out + i, T(0.5f) * v * (T(1.0f) + erf_of(v * T(0.70710678f))));
  });
  return graph_node(std::move(y), {x}, [](Node& n) {
    if (!n.wants(0)) return;
    const float *xv = n.parents[0]->value.data(), *dy = n.grad.data();
    Tensor dx = Tensor::from_shape(n.parents[0]->value.shape());
    float* d = dx.data();
    elementwise(dx.size(), [&](auto zero, std::size_t i) {
      using T = decltype(zero);
      const T v = load_as<T>(xv + i);
      const T cdf = T(0.5f) * (T(1.0f) + erf_of(v * T(0.70710678f))), pdf = T(0.39894228f) * exp_of(T(-0.5f) * v * v);
      store_to(d + i, load_as<T>(dy + i) * (cdf + v * pdf));
    });
    n.accumulate(0, std::move(dx));
  }, reads_parents({0}));
}

// y = e^x;  dx += dy * y
Var exp(const Var& x) {
  return graph_node(xt::exp(x.value()), {x}, [](Node& n) { n.accumulate(0, n.grad * n.value); }, reads_parents({}, true));
}

// y = ln x;  dx += dy / x
Var log(const Var& x) {
  return graph_node(xt::log(x.value()), {x},
                [](Node& n) { n.accumulate(0, n.grad / n.parents[0]->value); });
}

// y = sqrt(x);  dx += dy / (2 y)
Var sqrt(const Var& x) {
  return graph_node(xt::sqrt(x.value()), {x},
                [](Node& n) { n.accumulate(0, n.grad / (2.0f * n.value)); });
}

// y = x^2;  dx += 2 x dy
Var square(const Var& x) {
  return graph_node(x.value() * x.value(), {x},
                [](Node& n) { n.accumulate(0, 2.0f * n.parents[0]->value * n.grad); });
}

// y = |x|;  dx += sign(x) dy
Var abs(const Var& x) {
  return graph_node(xt::abs(x.value()), {x}, [](Node& n) {
    n.accumulate(0, xt::sign(n.parents[0]->value) * n.grad);
  });
}

}  // namespace attn
