// Properties of (masked) softmax: rows sum to 1, masked entries are exactly 0, an all-masked
// row is all zeros (never NaN), huge scores do not overflow.
#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/attnlab.hpp"

using namespace attn;

namespace {

Tensor random_scores(const Shape& shape, std::uint64_t seed, float spread) {
  Rng rng(seed);
  Tensor t = Tensor::from_shape(shape);
  for (float& v : t) v = rng.normal(0.0f, spread);
  return t;
}

}  // namespace

TEST_CASE("softmax rows sum to 1 and are positive", "[softmax][property]") {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Tensor s = random_scores({4, 3, 7}, seed, 1.0f + static_cast<float>(seed));
    const Tensor y = softmax(constant(s)).value();
    for (std::size_t r = 0; r < 12; ++r) {
      double total = 0.0;
      for (std::size_t j = 0; j < 7; ++j) {
        CHECK(y.data()[r * 7 + j] >= 0.0f);
        total += y.data()[r * 7 + j];
      }
      CHECK(total == Approx(1.0).epsilon(1e-6));
    }
  }
}

TEST_CASE("masked softmax: masked entries exactly 0, valid ones sum to 1, length 0 gives zeros", "[softmax][property]") {
  Rng lens_rng(3);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const std::size_t batch = 3, queries = 4, keys = 6;
    const Tensor s = random_scores({batch, queries, keys}, seed, 3.0f);
    IntTensor lens1 = IntTensor::from_shape({batch});
    IntTensor lens2 = IntTensor::from_shape({batch, queries});
    for (int& l : lens1) l = static_cast<int>(lens_rng.below(keys + 1));  // includes 0 and keys
    for (int& l : lens2) l = static_cast<int>(lens_rng.below(keys + 1));
    for (const bool per_query : {false, true}) {
      const Tensor y = masked_softmax(constant(s), per_query ? lens2 : lens1).value();
      for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t q = 0; q < queries; ++q) {
          const int len = per_query ? lens2(b, q) : lens1(b);
          double total = 0.0;
          for (std::size_t k = 0; k < keys; ++k) {
            const float w = y(b, q, k);
            REQUIRE(std::isfinite(w));
            if (static_cast<int>(k) >= len) CHECK(w == 0.0f);
            total += w;
          }
          CHECK(total == Approx(len == 0 ? 0.0 : 1.0).margin(1e-6));
        }
    }
  }
}

TEST_CASE("valid length 0 gives no NaN in values or gradients", "[softmax][property]") {
  Var s = leaf(random_scores({2, 3, 4}, 1, 1.0f));
  const Var y = masked_softmax(s, IntTensor{0, 0});
  sum(y * y + y).backward();
  for (float v : y.value()) CHECK(v == 0.0f);
  for (float g : s.grad()) CHECK(g == 0.0f);
}

TEST_CASE("huge scores do not overflow softmax, log-softmax or cross-entropy", "[softmax][property]") {
  const Tensor s = {{1e30f, -1e30f, 3e4f}, {88.0f, 89.0f, 90.0f}};
  const Tensor y = softmax(constant(s)).value();
  const Tensor ls = log_softmax(constant(s)).value();
  for (float v : y) CHECK(std::isfinite(v));
  for (float v : ls) CHECK(!std::isnan(v));
  CHECK(y(0, 0) == 1.0f);
  const Tensor huge = {{{1e20f, 0.0f, -1e20f}}};
  const Var logits = leaf(huge);
  const IntTensor label = xt::zeros<int>({1, 1});
  const Var loss = masked_cross_entropy(logits, label, xt::ones<int>({1}));
  loss.backward();
  CHECK(loss.value()(0) == 0.0f);
  for (float g : logits.grad()) CHECK(std::isfinite(g));
}
