#include "attnlab/nn/init.hpp"

#include <cmath>
#include <stdexcept>

namespace attn {
namespace {

// Fans of a [fan_in, fan_out, receptive...] weight; a vector counts as [n, 1].
std::pair<float, float> fans(const Shape& shape) {
  if (shape.empty()) return {1.0f, 1.0f};
  if (shape.size() == 1) return {static_cast<float>(shape[0]), 1.0f};
  std::size_t receptive = 1;
  for (std::size_t i = 2; i < shape.size(); ++i) receptive *= shape[i];
  return {static_cast<float>(shape[0] * receptive), static_cast<float>(shape[1] * receptive)};
}

}  // namespace

Tensor initialised(const Shape& shape, const Init& init, Rng& rng) {
  Tensor t = xt::zeros<float>(shape);
  const auto [fan_in, fan_out] = fans(shape);
  switch (init.kind) {
    case Init::Kind::zeros:
      break;
    case Init::Kind::constant:
      t.fill(init.a);
      break;
    case Init::Kind::normal:
      for (float& v : t) v = rng.normal(0.0f, init.a);
      break;
    case Init::Kind::uniform:
      for (float& v : t) v = rng.uniform(init.a, init.b);
      break;
    case Init::Kind::xavier_uniform: {
      const float bound = init.a * std::sqrt(6.0f / (fan_in + fan_out));
      for (float& v : t) v = rng.uniform(-bound, bound);
      break;
    }
  }
  return t;
}

}  // namespace attn
