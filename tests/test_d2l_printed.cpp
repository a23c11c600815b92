// d2l's printed, deterministic results (Dive into Deep Learning, chapters 9-11).
#include <catch2/catch.hpp>

#include <xtensor/xbuilder.hpp>

#include "attnlab/attnlab.hpp"

using namespace attn;

TEST_CASE("d2l sequence_mask([[1,2,3],[4,5,6]], [1,2]) -> [[1,0,0],[4,5,0]]", "[d2l]") {
  const Tensor x = {{1, 2, 3}, {4, 5, 6}};
  const Tensor expected = {{1, 0, 0}, {4, 5, 0}};
  CHECK((sequence_mask(x, IntTensor{1, 2}) == expected));
}

TEST_CASE("d2l masked cross-entropy of ones(3,4,10) against label 1, lens [4,2,0]", "[d2l]") {
  const Var logits = constant(xt::ones<float>({3, 4, 10}));
  const Tensor loss = masked_cross_entropy(logits, xt::ones<int>({3, 4}), IntTensor{4, 2, 0}).value();
  REQUIRE(loss.shape() == std::vector<std::size_t>{3});
  CHECK(loss(0) == Approx(2.3026).margin(1e-4));
  CHECK(loss(1) == Approx(1.1513).margin(1e-4));
  CHECK(loss(2) == 0.0f);
}

TEST_CASE("d2l bmm: weights 0.1 [2,1,10] x arange(20) [2,10,1] -> [[[4.5]],[[14.5]]]", "[d2l]") {
  const Var w = constant(xt::ones<float>({2, 1, 10}) * 0.1f);
  Tensor v = xt::arange<float>(20.0f);
  v.reshape({2, 10, 1});
  const Tensor y = bmm(w, constant(v)).value();
  REQUIRE(y.shape() == std::vector<std::size_t>{2, 1, 1});
  CHECK(y(0, 0, 0) == Approx(4.5f).epsilon(1e-6));
  CHECK(y(1, 0, 0) == Approx(14.5f).epsilon(1e-6));
}

TEST_CASE("d2l layer norm of [[1,2],[2,3]] -> [[-1,1],[-1,1]]", "[d2l]") {
  ParamStore store;
  Rng rng(0);
  const LayerNorm ln(ParamScope(store, rng, "ln"), 2);
  const Tensor y = ln(constant(Tensor{{1, 2}, {2, 3}})).value();
  const Tensor expected = {{-1, 1}, {-1, 1}};
  for (std::size_t i = 0; i < 4; ++i) CHECK(y.data()[i] == Approx(expected.data()[i]).margin(1e-4));
}
