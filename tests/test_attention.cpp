// Attention building blocks beyond the conformance suite: causal and windowed masking, multi-head shapes
// and head masks, positional encodings, the fused additive kernel and its tanh.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/positional_encoding.hpp"
#include "attnlab/gradcheck.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;

TEST_CASE("the fused tanh is within 3e-7 (2 ulp at 1) of std::tanh everywhere", "[attention][additive]") {
  float worst = 0.0f;
  for (float x = -12.0f; x <= 12.0f; x += 0.0007f) worst = std::max(worst, std::abs(fast_tanh_value(x) - std::tanh(x)));
  INFO("worst " << worst);
  CHECK(worst < 3e-7f);
}

TEST_CASE("fused additive scores equal the unfused composition, values and gradients", "[attention][additive]") {
  Rng rng(1);
  for (const std::size_t h : {5, 16, 37}) {  // below, at and beyond one SIMD register, with a tail
    Var q = leaf(randn({2, 3, h}, rng)), k = leaf(randn({2, 4, h}, rng)), w = leaf(randn({h}, rng));
    const Var fused = additive_scores(q, k, w);
    // unfused: tanh(q_i + k_j) materialised as [B, n_q, n_k, h], then . w
    const Var features = tanh(reshape(q, {2, 3, 1, h}) + reshape(k, {2, 1, 4, h}));
    const Var unfused = sum(features * w, {3});
    CHECK(xt::allclose(fused.value(), unfused.value(), 1e-5, 1e-5));
    GradCheckOptions options;
    const auto result = gradcheck([&] { return additive_scores(q, k, w); }, {q, k, w}, rng, options);
    INFO(result.report);
    CHECK(result.ok);
  }
}

TEST_CASE("causal self-attention: query i never sees keys after i", "[attention][modes]") {
  Rng rng(2);
  ParamStore store;
  AttentionConfig config;
  config.mode = {"vvv", {}};
  config.mode.options.set("causal", "true");
  config.scoring = {"scaled_dot", {}};
  const Attention attention(builtins(), ParamScope(store, rng), config, 4, 4, 4);
  const Var x = constant(randn({2, 5, 4}, rng));
  const Tensor w = attention({x, x, x}, IntTensor{5, 3}).weights.value();
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 0; j < 5; ++j) {
        const bool visible = j <= i && j < (b == 0 ? 5u : 3u);
        if (!visible) CHECK(w(b, i, j) == 0.0f);
        else CHECK(w(b, i, j) > 0.0f);
      }
}

TEST_CASE("windowed self-attention: query i sees exactly the keys |i - j| < k (and j <= i if causal), under any normalizer", "[attention][modes][window]") {
  Rng rng(4);
  const Var x = constant(randn({2, 7, 4}, rng));
  const IntTensor lens{7, 4};
  for (const bool causal : {false, true})
    for (const std::string normalizer : {"softmax", "sparsemax", "sigmoid"})
      for (const std::size_t k : {1, 2, 3}) {
        DYNAMIC_SECTION("window " << k << (causal ? ", causal" : "") << ", " << normalizer) {
          ParamStore store;
          AttentionConfig config;
          config.mode = {"vvv", {}};
          config.mode.options.set("window", std::to_string(k));
          if (causal) config.mode.options.set("causal", "true");
          config.scoring = {"scaled_dot", {}};
          config.normalizer = {normalizer, {}};
          const Attention attention(builtins(), ParamScope(store, rng), config, 4, 4, 4);
          const Tensor w = attention({x, x, x}, lens).weights.value();
          for (std::size_t b = 0; b < 2; ++b)
            for (std::size_t i = 0; i < 7; ++i) {
              double total = 0;
              std::size_t seen = 0;
              for (std::size_t j = 0; j < 7; ++j) {
                const std::size_t distance = i > j ? i - j : j - i;
                const bool visible = distance < k && (!causal || j <= i) && j < static_cast<std::size_t>(lens(b));
                INFO("b " << b << ", query " << i << ", key " << j);
                if (!visible) CHECK(w(b, i, j) == 0.0f);
                if (visible && normalizer != "sparsemax") CHECK(w(b, i, j) > 0.0f);  // sparsemax may give exact zeros
                total += w(b, i, j);
                seen += visible;
              }
              if (normalizer != "sigmoid" && seen > 0) CHECK(total == Approx(1.0).margin(1e-5));
              if (seen == 0) CHECK(total == 0.0);
            }
        }
      }
}

TEST_CASE("softmax, sparsemax and mask_keys over key ranges [B, n_q, 2] pass the gradient check", "[attention][window][gradcheck]") {
  Rng rng(5);
  const Var s = leaf(randn({2, 3, 5}, rng));
  const ValidLens ranges = IntTensor{{{0, 2}, {1, 4}, {3, 5}}, {{2, 3}, {0, 0}, {4, 9}}};  // an empty row; an end past n_k
  for (const auto& [name, op] : std::vector<std::pair<std::string, std::function<Var()>>>{
           {"masked_softmax", [&] { return masked_softmax(s, ranges); }},
           {"sparsemax", [&] { return sparsemax(s * 3.0f, ranges); }},
           {"mask_keys", [&] { return mask_keys(s, ranges); }}}) {
    DYNAMIC_SECTION(name) {
      const Tensor y = op().value();
      CHECK(y(0, 0, 2) == 0.0f);
      CHECK(y(0, 1, 0) == 0.0f);
      CHECK(y(0, 2, 2) == 0.0f);
      CHECK(y(1, 1, 0) == 0.0f);  // the empty row is all zeros, not NaN
      CHECK(std::isfinite(y(1, 2, 4)));
      const GradCheckResult r = gradcheck(op, NamedVars{{"s", s}}, rng);
      INFO(r.report);
      CHECK(r.ok);
    }
  }
  CHECK_THROWS_WITH(masked_softmax(s, ValidLens(IntTensor{{{0, 2}}})), Catch::Contains("key ranges [B, n_q, 2]"));
  Tensor hostile = s.value();  // inf and NaN on masked keys still give exactly 0 there
  hostile(0, 0, 3) = INFINITY, hostile(0, 0, 4) = NAN, hostile(1, 1, 2) = -INFINITY;
  const Tensor masked = mask_keys(constant(hostile), ranges).value();
  CHECK(masked(0, 0, 3) == 0.0f);
  CHECK(masked(0, 0, 4) == 0.0f);
  CHECK(masked(1, 1, 2) == 0.0f);
  CHECK(masked(0, 0, 1) == hostile(0, 0, 1));
}

TEST_CASE("multi-head attention: shapes, per-head masks, any scoring function", "[attention][multihead]") {
  for (const std::string scoring : {"scaled_dot", "additive", "general", "dot"}) {
    DYNAMIC_SECTION("scoring " << scoring) {
      Rng rng(3);
      ParamStore store;
      AttentionConfig config;
      config.mode = {"qvv", {}};
      config.scoring = {scoring, {}};
      config.multi_head = MultiHead{4, 16, false};
      const Attention mha(builtins(), ParamScope(store, rng, "mha"), config, 6, 10, 10);
      const Var q = constant(randn({3, 2, 6}, rng)), memory = constant(randn({3, 7, 10}, rng));
      const AttentionResult r = mha({q, memory, memory}, IntTensor{7, 1, 4}, ForwardContext::evaluation());
      CHECK(r.output.shape() == Shape{3, 2, 16});
      CHECK(r.weights.shape() == Shape{12, 2, 7});
      const Var by_head = r.weights_by_head();
      REQUIRE(by_head.shape() == Shape{3, 4, 2, 7});
      for (std::size_t h = 0; h < 4; ++h)
        for (std::size_t i = 0; i < 2; ++i) {
          for (std::size_t j = 1; j < 7; ++j) CHECK(by_head.value()(1, h, i, j) == 0.0f);
          CHECK(by_head.value()(1, h, i, 0) == Approx(1.0f));
        }
    }
  }
  ParamStore store;
  Rng rng(4);
  AttentionConfig bad;
  bad.multi_head = MultiHead{3, 16, false};
  CHECK_THROWS_WITH(Attention(builtins(), ParamScope(store, rng), bad, 4, 4, 4),
                    Catch::Contains("multiple of the number of heads"));
}

TEST_CASE("positional encodings: sinusoidal adds the table, learned ones train", "[attention][positional]") {
  ParamStore store;
  Rng rng(5);
  const PositionalEncoding sinusoidal(ParamScope(store, rng, "pe"), "sinusoidal", 20, 6);
  CHECK(store.size() == 0);
  const Var x = constant(xt::zeros<float>({2, 4, 6}));
  const Tensor y = sinusoidal(x).value();
  CHECK(y(1, 0, 1) == Approx(1.0f));          // cos(0)
  CHECK(y(0, 3, 0) == Approx(std::sin(3.0f)));  // sin(3 / 10000^0)
  const PositionalEncoding learned(ParamScope(store, rng, "pe"), "learned", 20, 6);
  REQUIRE(store.contains("pe.P"));
  Var xl = leaf(randn({2, 4, 6}, rng));
  sum(square(learned(xl))).backward();
  const Tensor& g = store.get("pe.P").grad();
  for (std::size_t j = 0; j < 6; ++j) CHECK(g(10, j) == 0.0f);  // positions beyond the sequence get nothing
  CHECK(g(0, 0) != 0.0f);
  CHECK_THROWS_WITH(sinusoidal(constant(xt::zeros<float>({1, 21, 6}))), Catch::Contains("max_len 20"));
  CHECK_THROWS_WITH(PositionalEncoding(ParamScope(store, rng, "x"), "rotary", 4, 4), Catch::Contains("'sinusoidal' or 'learned'"));
}
