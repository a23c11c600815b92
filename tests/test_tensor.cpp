// Tensor kernels: BLAS products against xtensor-blas as an independent reference,
// broadcasting reductions, shape errors.
#include <catch2/catch.hpp>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include "attnlab/attnlab.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;

TEST_CASE("matmul folds leading axes and agrees with xt::linalg::dot", "[tensor][blas]") {
  const Tensor a = randn({2, 3, 4}, 1), b = randn({4, 5}, 2);
  const Tensor c = matmul(a, b);
  REQUIRE(shape_of(c) == Shape{2, 3, 5});
  for (std::size_t i = 0; i < 2; ++i) {
    const Tensor ai = xt::view(a, i);
    const Tensor ref = xt::linalg::dot(ai, b);
    CHECK(xt::allclose(xt::view(c, i), ref, 1e-5, 1e-5));
  }
}

TEST_CASE("bmm with every transpose flag agrees with per-batch xt::linalg::dot", "[tensor][blas]") {
  const Tensor a = randn({3, 4, 5}, 3), b = randn({3, 5, 2}, 4);
  const Tensor at = xt::transpose(a, {0, 2, 1}), bt = xt::transpose(b, {0, 2, 1});
  const Tensor c = bmm(a, b);
  REQUIRE(shape_of(c) == Shape{3, 4, 2});
  CHECK(xt::allclose(bmm(at, b, true, false), c, 1e-5, 1e-5));
  CHECK(xt::allclose(bmm(a, bt, false, true), c, 1e-5, 1e-5));
  CHECK(xt::allclose(bmm(at, bt, true, true), c, 1e-5, 1e-5));
  for (std::size_t i = 0; i < 3; ++i) {
    const Tensor ai = xt::view(a, i), bi = xt::view(b, i);
    CHECK(xt::allclose(xt::view(c, i), xt::linalg::dot(ai, bi), 1e-5, 1e-5));
  }
}

TEST_CASE("products reject mismatched shapes with the shapes in the message", "[tensor][errors]") {
  CHECK_THROWS_WITH(matmul(randn({2, 3}, 1), randn({4, 5}, 2)), Catch::Contains("[2, 3]") && Catch::Contains("[4, 5]"));
  CHECK_THROWS_WITH(bmm(randn({2, 3, 4}, 1), randn({2, 5, 6}, 2)), Catch::Contains("inner sizes differ"));
  CHECK_THROWS_AS(bmm(randn({2, 3, 4}, 1), randn({3, 4, 6}, 2)), std::invalid_argument);
}

TEST_CASE("empty products give zeros, not garbage", "[tensor][blas]") {
  const Tensor c = bmm(Tensor::from_shape({2, 3, 0}), Tensor::from_shape({2, 0, 4}));
  REQUIRE(shape_of(c) == Shape{2, 3, 4});
  for (float v : c) CHECK(v == 0.0f);
}

TEST_CASE("sum_axis and sum_to reduce broadcast axes", "[tensor]") {
  const Tensor x = randn({2, 3, 4}, 5);
  CHECK(xt::allclose(sum_axis(x, 1, false), xt::sum(x, {1}), 1e-5, 1e-5));
  CHECK(shape_of(sum_axis(x, 2, true)) == Shape{2, 3, 1});
  CHECK(xt::allclose(sum_to(x, {4}), xt::sum(x, {0, 1}), 1e-5, 1e-5));
  CHECK(xt::allclose(sum_to(x, {2, 1, 4}), xt::sum(x, {1}, xt::keep_dims), 1e-5, 1e-5));
  CHECK(xt::allclose(sum_to(x, {3, 1}), xt::sum(x, {0, 2}, xt::keep_dims), 1e-5, 1e-5));
  CHECK_THROWS_AS(sum_to(x, {5}), std::invalid_argument);
}
