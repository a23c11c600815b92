// Attention building blocks beyond the conformance suite: causal and windowed masking, multi-head shapes
// and head masks, grouped-query attention, the fused additive kernel and its tanh.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "attnlab/attention/attention.hpp"
#include "attnlab/gradcheck.hpp"
#include "attnlab/registries.hpp"
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

TEST_CASE("grouped-query attention is multi-head attention whose heads of a group share their keys and values", "[attention][multihead]") {
  for (const std::size_t kv_heads : {std::size_t{1}, std::size_t{2}}) {
    DYNAMIC_SECTION(kv_heads << " key/value heads for 4 query heads") {
      Rng rng(5);
      ParamStore grouped_store, full_store;
      AttentionConfig config;
      config.mode = {"vvv", {}};
      config.mode.options.set("causal", "true");
      config.scoring = {"scaled_dot", {}};
      config.multi_head = MultiHead{4, 16, false, kv_heads};
      const Attention grouped(builtins(), ParamScope(grouped_store, rng, "a"), config, 16, 16, 16);
      config.multi_head = MultiHead{4, 16, false};
      const Attention full(builtins(), ParamScope(full_store, rng, "a"), config, 16, 16, 16);
      REQUIRE(grouped_store.get("a.W_k.W").shape() == Shape{16, 4 * kv_heads});
      // the full model's W_k, W_v: each query head's columns are its group's (head i reads group i kv / 4)
      for (const std::string w : {"a.W_q.W", "a.W_o.W"}) full_store.get(w).mutable_value() = grouped_store.get(w).value();
      for (const std::string w : {"a.W_k.W", "a.W_v.W"})
        for (std::size_t r = 0; r < 16; ++r)
          for (std::size_t head = 0; head < 4; ++head)
            for (std::size_t c = 0; c < 4; ++c)
              full_store.get(w).mutable_value()(r, head * 4 + c) = grouped_store.get(w).value()(r, head * kv_heads / 4 * 4 + c);
      const Var x = constant(randn({2, 5, 16}, rng));
      const AttentionResult a = grouped({x, x, x}, std::nullopt), b = full({x, x, x}, std::nullopt);
      CHECK(xt::allclose(a.output.value(), b.output.value(), 1e-5, 1e-6));
      CHECK(xt::allclose(a.weights.value(), b.weights.value(), 1e-5, 1e-6));
      // decoding keeps the grouped keys and values: 4 / kv_heads times fewer
      KeyValueCache cache;
      for (std::size_t t = 0; t < 5; ++t) grouped.extend({slice(x, 1, t, t + 1), slice(x, 1, t, t + 1), slice(x, 1, t, t + 1)}, cache);
      CHECK(cache.keys.shape() == Shape{2 * kv_heads, 5, 4});
      CHECK(cache.bytes() == sizeof(float) * 2 * (2 * kv_heads * 5 * 4));
      Var input = leaf(randn({2, 3, 16}, rng));
      Rng check(6);
      const GradCheckResult g = gradcheck([&] { return grouped({input, input, input}, std::nullopt).output; },
                                          [&] { NamedVars leaves = grouped_store.items(); leaves.emplace_back("x", input); return leaves; }(), check);
      INFO(g.report);
      CHECK(g.ok);
    }
  }
  ParamStore store;
  Rng rng(4);
  AttentionConfig bad;
  bad.multi_head = MultiHead{4, 16, false, 3};
  CHECK_THROWS_WITH(Attention(builtins(), ParamScope(store, rng), bad, 16, 16, 16), Catch::Contains("kv_heads (3) must divide heads (4)"));
}

namespace {

// scale q k^T, declared or not: the same arithmetic as the built-in scaled_dot, with or without
// the declaration that lets attention run fused (or, `lying`, declaring a scale it does not use).
class DotTimes final : public ScoringFunction {
 public:
  DotTimes(float scale, std::optional<float> declared) : scale_(scale), declared_(declared) {}
  Var score(const Var& q, const Var& k) override { return bmm(q, k, false, true, scale_); }
  std::optional<float> dot_product_scale() const override { return declared_; }

 private:
  float scale_;
  std::optional<float> declared_;
};

// A normalizer that declares itself a masked softmax but is not one.
class FalseSoftmax final : public Normalizer {
 public:
  explicit FalseSoftmax(const NormalizerArgs&) {}
  Var normalize(const Var& scores, const ValidLens& lens) override { return masked_softmax(scores * 2.0f, lens); }
  NormalizerTraits traits() const override {
    NormalizerTraits t;
    t.masked_softmax = true;
    return t;
  }
};

// The output and the gradients of q, k and v of one attention computation, for sum(output * g).
struct AttentionRun {
  Tensor output, weights, dq, dk, dv;
};

AttentionRun run_attention(const std::function<AttentionResult()>& attend, const std::vector<Var>& inputs,
                           const Tensor& g) {
  for (const Var& x : inputs) x.zero_grad();
  const AttentionResult r = attend();
  sum(r.output * constant(g)).backward();
  return {r.output.value(), r.weights.value(), inputs[0].grad(), inputs[1].grad(), inputs[2].grad()};
}

// Same shape and values within the tolerances (xt::allclose is not defined on empty tensors).
bool close(const Tensor& a, const Tensor& b, double rtol, double atol) {
  return a.shape() == b.shape() && (a.size() == 0 || xt::allclose(a, b, rtol, atol));
}

void require_same_run(const AttentionRun& fused, const AttentionRun& composed) {
  CHECK(close(fused.output, composed.output, 1e-5, 1e-5));
  CHECK(close(fused.weights, composed.weights, 1e-5, 1e-6));
  CHECK(close(fused.dq, composed.dq, 1e-4, 1e-5));
  CHECK(close(fused.dk, composed.dk, 1e-4, 1e-5));
  CHECK(close(fused.dv, composed.dv, 1e-4, 1e-5));
}

}  // namespace

TEST_CASE("fused dot-product attention equals scores, masked softmax and pooling composed, values and gradients",
          "[attention][fused]") {
  Rng rng(21);
  // The block path: n_k 3000 makes blocks of 5 queries: 27 queries are five whole blocks and a
  // partial one. Sizes 40 and 48 (q and k, v) and 45 keys give the register tiles of the products
  // whole tiles of rows and columns and every kind of remainder. The short path (rows of at most
  // one vector: 8 lanes with AVX2, 16 with AVX-512): rows shorter than a vector, rows of exactly 8
  // (one AVX2 vector), and with AVX-512 rows of 10 (W5's shape) and of exactly 16.
  struct Sizes {
    std::size_t nq, nk, p, pv;
  };
  for (const auto& [nq, nk, p, pv] : std::vector<Sizes>{{3, 5, 40, 48}, {25, 45, 40, 48}, {27, 3000, 40, 48},
                                                        {7, 5, 4, 3}, {9, 8, 8, 8}, {10, 10, 8, 8}, {9, 16, 16, 16}}) {
    IntTensor per_query = IntTensor::from_shape({2, nq}), ranges = IntTensor::from_shape({2, nq, 2});
    for (std::size_t i = 0; i < 2 * nq; ++i) {
      per_query.data()[i] = static_cast<int>(std::min(i, nk));   // includes a query without keys
      ranges.data()[2 * i] = static_cast<int>(i % 3), ranges.data()[2 * i + 1] = static_cast<int>(nk - i % 2);
    }
    const std::vector<std::pair<std::string, ValidLens>> masks{{"none", std::nullopt},
                                                               {"lengths [B]", IntTensor{static_cast<int>(nk), 0}},  // a sequence without keys
                                                               {"lengths [B, n_q]", per_query},
                                                               {"key ranges [B, n_q, 2]", ranges}};
    for (const auto& [name, lens] : masks) {
      for (const float dropout : {0.0f, 0.3f})
        DYNAMIC_SECTION(nq << " queries, " << nk << " keys, sizes " << p << " and " << pv << ", mask " << name
                                   << ", dropout " << dropout) {
          Var q = leaf(randn({2, nq, p}, rng)), k = leaf(randn({2, nk, p}, rng)), v = leaf(randn({2, nk, pv}, rng));
          const Tensor g = randn({2, nq, pv}, rng);
          Rng fused_rng(77), composed_rng(77);  // one seed: the same mask on both sides
          const AttentionRun fused = run_attention([&] {
            const FusedAttention f = softmax_attention(q, k, v, 0.2f, lens, ForwardContext::training(fused_rng).draw_dropout(dropout));
            return AttentionResult{f.output, f.weights};
          }, {q, k, v}, g);
          const AttentionRun composed = run_attention([&] {
            return attention_pooling(masked_softmax(bmm(q, k, false, true, 0.2f), lens), v, dropout,
                                     ForwardContext::training(composed_rng));
          }, {q, k, v}, g);
          require_same_run(fused, composed);
          CHECK_FALSE(fused.weights.size() == 0);
          CHECK(fused_rng.next_u64() == composed_rng.next_u64());  // both drew as many numbers
        }
    }
  }
  SECTION("self-attention: one input as q, k and v gathers three gradients into one") {
    const int n = GENERATE(200, 7);  // 200: blocks of 81 queries, three add into dk and dv; 7: the short path
    Var x = leaf(randn({2, static_cast<std::size_t>(n), 3}, rng));
    const Tensor g = randn({2, static_cast<std::size_t>(n), 3}, rng);
    const Var dummy1 = leaf(randn({1}, rng)), dummy2 = leaf(randn({1}, rng));
    const AttentionRun fused = run_attention([&] {
      const FusedAttention f = softmax_attention(x, x, x, 0.7f, IntTensor{n, 5});
      return AttentionResult{f.output, f.weights};
    }, {x, dummy1, dummy2}, g);
    const AttentionRun composed = run_attention([&] {
      return attention_pooling(masked_softmax(bmm(x, x, false, true, 0.7f), IntTensor{n, 5}), x);
    }, {x, dummy1, dummy2}, g);
    require_same_run(fused, composed);
  }
  SECTION("empty: no queries, no keys (outputs and gradients all zeros, as composed), both paths") {
    const std::size_t pv = GENERATE(40, 3);  // the block path, the short path
    for (const auto& [nq, nk] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 5}, {3, 0}}) {
      Var q = leaf(randn({2, nq, 4}, rng)), k = leaf(randn({2, nk, 4}, rng)), v = leaf(randn({2, nk, pv}, rng));
      const Tensor g = randn({2, nq, pv}, rng);
      { Tensor junk = xt::full_like(v.value(), NAN); }  // freed memory the gradient buffers may reuse
      const auto fused = [&] {
        const FusedAttention f = softmax_attention(q, k, v, 0.5f, IntTensor{static_cast<int>(nk), 1});
        return AttentionResult{f.output, f.weights};
      };
      const auto composed = [&] {
        return attention_pooling(masked_softmax(bmm(q, k, false, true, 0.5f), IntTensor{static_cast<int>(nk), 1}), v);
      };
      require_same_run(run_attention(fused, {q, k, v}, g), run_attention(composed, {q, k, v}, g));
      { Tensor junk = xt::full_like(v.value(), NAN); }
      run_attention(fused, {q, k, v}, g);
      for (const float x : k.grad()) CHECK(x == 0.0f);
      for (const float x : v.grad()) CHECK(x == 0.0f);
    }
  }
  SECTION("the gradient check, both paths, without and with dropout (a fixed seed: the same mask at every evaluation)") {
    const std::size_t p = GENERATE(4, 40);  // the short path, the block path
    Var q = leaf(randn({2, 3, p}, rng)), k = leaf(randn({2, 5, p}, rng)), v = leaf(randn({2, 5, 3}, rng));
    for (const DropoutDraw dropout : {DropoutDraw{}, DropoutDraw{0.4f, 12345}}) {
      const GradCheckResult r = gradcheck([&] { return softmax_attention(q, k, v, 0.5f, IntTensor{5, 2}, dropout).output; },
                                          NamedVars{{"q", q}, {"k", k}, {"v", v}}, rng);
      INFO(r.report);
      CHECK(r.checked > 0);
      CHECK(r.ok);
    }
  }
  SECTION("a dropout rate outside [0, 1) is refused") {
    Var q = leaf(randn({1, 2, 4}, rng));
    for (const float p : {-0.1f, 1.0f, NAN})
      CHECK_THROWS_WITH(softmax_attention(q, q, q, 1.0f, std::nullopt, DropoutDraw{p, 1}),
                        Catch::Contains("softmax_attention: the dropout rate must be in [0, 1)"));
  }
}

TEST_CASE("fused attention without weights kept: the same output; no weights stored unless a gradient is recorded",
          "[attention][fused]") {
  Rng rng(22);
  const std::size_t p = GENERATE(4, 40);  // the short path, the block path
  Var q = leaf(randn({2, 6, p}, rng)), k = leaf(randn({2, 9, p}, rng)), v = leaf(randn({2, 9, 3}, rng));
  const IntTensor lens{9, 4};
  const FusedAttention kept = softmax_attention(q, k, v, 0.5f, lens);
  const FusedAttention recorded = softmax_attention(q, k, v, 0.5f, lens, {}, false);  // q, k, v take gradients
  REQUIRE(recorded.weights.defined());
  CHECK(recorded.weights.value() == kept.weights.value());
  const NoGrad no_grad;
  const FusedAttention bare = softmax_attention(q, k, v, 0.5f, lens, {}, false);
  CHECK_FALSE(bare.weights.defined());
  CHECK(bare.output.value() == kept.output.value());
  CHECK(softmax_attention(q, k, v, 0.5f, lens).weights.defined());  // asked for: kept under NoGrad too
}

TEST_CASE("attention runs fused exactly when scoring declares a dot product and the normalizer a softmax",
          "[attention][fused]") {
  Registries registries = builtins();
  const float scale = 1.0f / std::sqrt(4.0f);  // head size 16 / 4 heads
  registries.scoring.add("undeclared", "scaled dot product, not declared",
                         [scale](const ScoringArgs&) -> std::unique_ptr<ScoringFunction> {
                           return std::make_unique<DotTimes>(scale, std::nullopt);
                         });
  registries.scoring.add("declared", "scaled dot product, declared",
                         [scale](const ScoringArgs&) -> std::unique_ptr<ScoringFunction> {
                           return std::make_unique<DotTimes>(scale, scale);
                         });
  registries.scoring.add("lying", "scaled dot product, declaring another scale",
                         [scale](const ScoringArgs&) -> std::unique_ptr<ScoringFunction> {
                           return std::make_unique<DotTimes>(scale, 2 * scale);
                         });
  registries.normalizers.add<FalseSoftmax>("false_softmax", "declares a softmax, is not one");
  const auto build = [&](const std::string& scoring, const std::string& normalizer, ParamStore& store,
                         std::size_t key_dim = 10, float dropout = 0.0f) {
    Rng rng(8);
    AttentionConfig config;
    config.scoring = {scoring, {}, ""};
    config.normalizer = {normalizer, {}, ""};
    config.multi_head = MultiHead{4, 16, false};
    config.dropout = dropout;
    return Attention(registries, ParamScope(store, rng, "mha"), config, 6, key_dim, key_dim);
  };
  ParamStore declared_store, undeclared_store;
  const Attention fused = build("declared", "softmax", declared_store);
  const Attention composed = build("undeclared", "softmax", undeclared_store);
  Rng rng(9);
  Var q = leaf(randn({3, 5, 6}, rng)), memory = leaf(randn({3, 7, 10}, rng));
  const Var unused = leaf(randn({1}, rng));
  const Tensor g = randn({3, 5, 16}, rng);
  const IntTensor lens = {7, 1, 4};
  const auto run = [&](const Attention& a) {
    return run_attention([&] { return a({q, memory, memory}, lens, ForwardContext::evaluation()); }, {q, memory, unused}, g);
  };
  const AttentionRun a = run(fused), b = run(composed);
  require_same_run(a, b);
  // Self-attention: Q, K and V are head slices of one product x [W_q | W_k | W_v].
  ParamStore self_declared, self_undeclared;
  const Attention fused_self = build("declared", "softmax", self_declared, 6);
  const Attention composed_self = build("undeclared", "softmax", self_undeclared, 6);
  const auto run_self = [&](const Attention& att) {
    return run_attention([&] { return att({q, q, q}, IntTensor{{1, 2, 3, 4, 5}, {5, 5, 5, 5, 5}, {0, 1, 2, 2, 2}}, ForwardContext::evaluation()); },
                         {q, memory, unused}, g);
  };
  require_same_run(run_self(fused_self), run_self(composed_self));
  // Training with dropout on the weights: the fused path applies the mask the composed one draws.
  ParamStore dropping_declared, dropping_undeclared;
  const Attention fused_dropping = build("declared", "softmax", dropping_declared, 10, 0.25f);
  const Attention composed_dropping = build("undeclared", "softmax", dropping_undeclared, 10, 0.25f);
  const auto run_training = [&](const Attention& att) {
    Rng stream(31);
    return run_attention([&] { return att({q, memory, memory}, lens, ForwardContext::training(stream)); },
                         {q, memory, unused}, g);
  };
  const AttentionRun fused_training = run_training(fused_dropping), composed_training = run_training(composed_dropping);
  require_same_run(fused_training, composed_training);
  CHECK_FALSE(close(fused_training.output, a.output, 1e-3, 1e-3));  // the mask dropped something
  // The fused path's weights are a constant (no gradient flows through them); the composed one's are not.
  CHECK_FALSE(fused({q, memory, memory}, lens, ForwardContext::evaluation()).weights.requires_grad());
  CHECK(composed({q, memory, memory}, lens, ForwardContext::evaluation()).weights.requires_grad());
  {  // An evaluation that reads no weights: the fused path stores none, the output is the same.
    const NoGrad no_grad;
    const AttentionResult bare = fused({q, memory, memory}, lens, ForwardContext::evaluation_without_weights());
    CHECK_FALSE(bare.weights.defined());
    CHECK_FALSE(bare.weights_by_head().defined());
    CHECK(bare.output.value() == a.output);
    CHECK(composed({q, memory, memory}, lens, ForwardContext::evaluation_without_weights()).weights.defined());
  }

  // A false declaration is refused when the plugin is built, naming it.
  ParamStore store, other_store;
  CHECK_THROWS_WITH(build("lying", "softmax", store), Catch::Contains("scoring function 'lying'") &&
                                                          Catch::Contains("declares dot_product_scale() = 1") &&
                                                          Catch::Contains("exactly scale q k^T"));
  CHECK_THROWS_WITH(build("declared", "false_softmax", other_store),
                    Catch::Contains("normalizer 'false_softmax'") && Catch::Contains("declares traits().masked_softmax"));
}
