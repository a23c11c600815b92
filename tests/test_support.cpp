#include "test_support.hpp"

#include <cmath>

namespace attn::test {

const Registries& builtins() {
  static const Registries registries = [] {
    Registries r;
    register_builtins(r);
    return r;
  }();
  return registries;
}

Tensor randn(const Shape& shape, Rng& rng) {
  Tensor t = Tensor::from_shape(shape);
  for (float& v : t) v = rng.normal();
  return t;
}

Tensor randn(const Shape& shape, std::uint64_t seed, float min_abs) {
  Rng rng(seed);
  Tensor t = randn(shape, rng);
  for (float& v : t)
    if (std::abs(v) < min_abs) v = v < 0 ? v - min_abs : v + min_abs;
  return t;
}

}  // namespace attn::test
