// Parameters, initialisers, the run-owned random stream, dropout and the 1-D convolution.
#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/attnlab.hpp"
#include "attnlab/gradcheck.hpp"
#include "attnlab/nn/conv1d.hpp"
#include "test_support.hpp"

using namespace attn;

TEST_CASE("parameters get hierarchical dotted names in creation order", "[nn][params]") {
  ParamStore store;
  Rng rng(1);
  const ParamScope encoder = ParamScope(store, rng).child("encoder");
  const Linear l0(encoder.child("layer0"), 3, 4);
  const LayerNorm norm(encoder.child("norm"), 4);
  std::vector<std::string> names;
  for (const auto& item : store.items()) names.push_back(item.first);
  CHECK(names == std::vector<std::string>{"encoder.layer0.W", "encoder.layer0.b", "encoder.norm.gamma",
                                          "encoder.norm.beta"});
  CHECK(store.get("encoder.layer0.W").shape() == Shape{3, 4});
  CHECK(store.num_values() == 3 * 4 + 4 + 4 + 4);
}

TEST_CASE("duplicate, malformed and unknown parameter names are refused clearly", "[nn][params]") {
  ParamStore store;
  Rng rng(1);
  const ParamScope scope(store, rng, "m");
  scope.param("W", {2}, Init::zeros());
  CHECK_THROWS_WITH(scope.param("W", {2}, Init::zeros()), Catch::Contains("'m.W' already exists"));
  CHECK_THROWS_WITH(scope.param("bad name", {2}, Init::zeros()), Catch::Contains("not a dotted path"));
  CHECK_THROWS_WITH(scope.param("x..y", {2}, Init::zeros()), Catch::Contains("not a dotted path"));
  CHECK_THROWS_WITH(store.get("m.V"), Catch::Contains("known: m.W"));
}

TEST_CASE("initialisers have the statistics their formulas promise", "[nn][init]") {
  Rng rng(123);
  const Shape shape{200, 300};
  auto stats = [](const Tensor& t) {
    double s = 0, s2 = 0, mx = 0;
    for (float v : t) { s += v; s2 += double(v) * v; mx = std::max(mx, double(std::abs(v))); }
    const double n = static_cast<double>(t.size()), m = s / n;
    return std::array<double, 3>{m, std::sqrt(s2 / n - m * m), mx};
  };
  const double a = std::sqrt(6.0 / 500.0);
  const auto xu = stats(initialised(shape, Init::xavier_uniform(), rng));
  CHECK(std::abs(xu[0]) < 0.01 * a);
  CHECK(xu[1] == Approx(a / std::sqrt(3.0)).epsilon(0.02));
  CHECK(xu[2] <= a);
  const auto nn = stats(initialised(shape, Init::normal(0.5f), rng));
  CHECK(nn[1] == Approx(0.5).epsilon(0.02));
  CHECK(stats(initialised(shape, Init::zeros(), rng))[2] == 0.0);
  CHECK(stats(initialised({3}, Init::constant(2.5f), rng))[0] == Approx(2.5));
}

TEST_CASE("a seed fixes the stream; derived streams are independent of draws", "[nn][rng]") {
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) REQUIRE(a.next_u64() == b.next_u64());
  const Rng fresh(7);
  Rng used(7);
  used.normal();
  CHECK(fresh.derive("dropout").next_u64() == used.derive("dropout").next_u64());
  CHECK(fresh.derive("dropout").next_u64() != fresh.derive("init").next_u64());
  CHECK(Rng(7).derive("x").next_u64() != Rng(8).derive("x").next_u64());
  for (int i = 0; i < 1000; ++i) {
    const float u = a.uniform();
    REQUIRE(u >= 0.0f);
    REQUIRE(u < 1.0f);
  }
}

TEST_CASE("dropout is seeded, scales kept units and is the identity in evaluation", "[nn][dropout]") {
  const Var x = constant(xt::ones<float>({1000}));
  Rng r1(3), r2(3);
  const Tensor y1 = ForwardContext::training(r1).dropout(x, 0.5f).value();
  const Tensor y2 = ForwardContext::training(r2).dropout(x, 0.5f).value();
  CHECK((y1 == y2));
  std::size_t kept = 0;
  for (float v : y1) {
    CHECK((v == 0.0f || v == 2.0f));
    kept += v != 0.0f;
  }
  CHECK(kept > 400);
  CHECK(kept < 600);
  CHECK((ForwardContext::evaluation().dropout(x, 0.5f).value() == x.value()));
  CHECK_THROWS_AS(dropout(x, 1.0f, r1), std::invalid_argument);
}

TEST_CASE("a dropout rate outside [0, 1) is refused before anything is drawn, in training and in evaluation",
          "[nn][dropout][errors]") {
  const Var x = constant(xt::ones<float>({4}));
  for (const float p : {1.0f, 1.5f, -0.1f, std::nanf("")}) {
    Rng rng(3), untouched(3);
    const ForwardContext training = ForwardContext::training(rng), evaluation = ForwardContext::evaluation();
    CHECK_THROWS_WITH(training.dropout(x, p), Catch::Contains("dropout: the dropout rate must be in [0, 1)"));
    CHECK_THROWS_WITH(training.draw_dropout(p), Catch::Contains("dropout: the dropout rate must be in [0, 1)"));
    CHECK(rng.next_u64() == untouched.next_u64());  // no seed was drawn for the refused rate
    CHECK_THROWS_AS(evaluation.dropout(x, p), std::invalid_argument);  // not silently "no dropout"
    CHECK_THROWS_AS(evaluation.draw_dropout(p), std::invalid_argument);
  }
  CHECK(ForwardContext::evaluation().draw_dropout(0.0f).p == 0.0f);
}

TEST_CASE("Conv1d is the sum of shifted products y_i = b + sum_d x_{i+d} W_d, with zero padding, and passes the gradient check", "[nn][conv1d]") {
  Rng rng(6);
  ParamStore store;
  const Conv1d conv(ParamScope(store, rng).child("conv"), 3, 2, 3);  // width 3: d = -1, 0, 1
  const Var x = leaf(attn::test::randn({2, 4, 3}, rng));
  const Tensor y = conv(x).value();
  const Tensor& W = store.items()[0].second.value();  // [3 * 3, 2]: row block d + 1 is W_d
  const Tensor& bias = store.items()[1].second.value();
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t o = 0; o < 2; ++o) {
        double expected = bias(o);
        for (int d = -1; d <= 1; ++d) {
          const int j = static_cast<int>(i) + d;
          if (j < 0 || j >= 4) continue;  // zero padding
          for (std::size_t c = 0; c < 3; ++c) expected += x.value()(b, j, c) * W((d + 1) * 3 + c, o);
        }
        CHECK(y(b, i, o) == Approx(expected).margin(1e-5));
      }
  const GradCheckResult r = gradcheck([&] { return conv(x); }, NamedVars{{"x", x}, {"W", store.items()[0].second}}, rng);
  INFO(r.report);
  CHECK(r.ok);
  CHECK_THROWS_WITH(Conv1d(ParamScope(store, rng).child("even"), 3, 2, 4), Catch::Contains("odd"));
}
