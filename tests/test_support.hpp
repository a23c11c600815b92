// Helpers shared by the test files.
#pragma once

#include <cstdint>

#include "attnlab/registries.hpp"

namespace attn::test {

// Registries holding the built-in plugins (one instance for the whole test program).
const Registries& builtins();
// N(0, 1) entries; with min_abs > 0 entries are pushed away from 0 (kinks, poles).
Tensor randn(const Shape& shape, std::uint64_t seed, float min_abs = 0.0f);
Tensor randn(const Shape& shape, Rng& rng);

}  // namespace attn::test
