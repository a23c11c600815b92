// The conformance suite: every registered scoring function, RNN cell, attention mode,
// normalizer and positional scheme —
// built-ins, the example plugin, and every library given with --plugin — is checked for
// output shapes, masking (exact zeros, valid length 0 without NaN, rows summing to 1), batch
// independence, and finite-difference gradients of every input and parameter. A normalizer is
// held to the promises its traits() make (rows summing to 1, non-negative scores only).
// A positional scheme is held to its traits: a relative one's scores do not move when every
// position shifts; a table refuses positions past it; masked keys keep weight 0 under its bias;
// positions asked for alone (decoding with a cache) get what they get among the others.
// A new plugin is covered without writing a test.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <optional>

#include "attnlab/attention/attention.hpp"
#include "attnlab/gradcheck.hpp"
#include "attnlab/rnn/rnn.hpp"
#include "test_plugins.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;

namespace {

// The plugin's parameters and the named inputs, as gradcheck names them in its report.
NamedVars leaves_of(const ParamStore& store, const NamedVars& inputs) {
  NamedVars out = store.items();
  out.insert(out.end(), inputs.begin(), inputs.end());
  return out;
}

void require_gradients(const std::function<Var()>& f, const NamedVars& leaves, float eps = GradCheckOptions{}.eps) {
  Rng rng(11);
  GradCheckOptions options;
  options.max_entries_per_leaf = 24;
  options.eps = eps;
  const GradCheckResult result = gradcheck(f, leaves, rng, options);
  INFO(result.report);
  CHECK(result.checked > 0);
  CHECK(result.ok);
}

// Masked weights are exactly 0, rows with a valid key sum to 1 (when `sum_to_one`), rows
// without are all 0; every weight is finite and non-negative.
void require_masked_weights(const Tensor& weights, const IntTensor& lens, bool sum_to_one = true) {
  const std::size_t batch = weights.shape()[0], nq = weights.shape()[1], nk = weights.shape()[2];
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < nq; ++i) {
      const int len = lens.dimension() == 1 ? lens(b) : lens(b, i);
      double total = 0.0;
      for (std::size_t j = 0; j < nk; ++j) {
        const float w = weights(b, i, j);
        REQUIRE(std::isfinite(w));
        CHECK(w >= 0.0f);
        if (static_cast<int>(j) >= len) CHECK(w == 0.0f);
        total += w;
      }
      if (sum_to_one || len == 0) CHECK(total == Approx(std::min<int>(len, 1)).margin(1e-5));
    }
}

// A mode is built for sources of sizes 3, 4 and 5. It may refuse query and key sources of
// different sizes at construction (saying "size"); it is then built for 4, 4 and 5. A mode need
// not accept the projection options (`project`, `dim`) of the built-ins: one that reports
// `project` as an unknown option is tested without them.
std::optional<Attention> build_mode(const Registries& registries, const ParamScope& scope, const AttentionConfig& config,
                                    std::size_t& query_dim) {
  for (std::size_t d : {std::size_t{3}, std::size_t{4}}) {
    try {
      query_dim = d;
      return Attention(registries, scope, config, d, 4, 5);
    } catch (const SpecError& e) {
      if (config.mode.options.has("project") && e.message().find("unknown option 'project'") != std::string::npos) {
        WARN("attention mode '" << config.mode.name << "' takes no projection options: tested without them");
        return std::nullopt;
      }
      if (d == 4 || e.message().find("size") == std::string::npos) throw;
    }
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("conformance: every scoring function", "[conformance][scoring]") {
  const Registries& registries = test::all_plugins();
  for (const std::string& name : registries.scoring.names()) {
    DYNAMIC_SECTION("scoring function '" << name << "'") {
      Rng rng(3);
      ParamStore store;
      const Options defaults;
      auto scoring = registries.scoring.create(name, ScoringArgs{ParamScope(store, rng, "s"), defaults, 5, 5});
      Var q = leaf(randn({3, 4, 5}, rng)), k = leaf(randn({3, 6, 5}, rng)), v = leaf(randn({3, 6, 2}, rng));

      const Var scores = scoring->score(q, k);
      REQUIRE(scores.shape() == Shape{3, 4, 6});

      const IntTensor lens1 = {6, 2, 0};
      const IntTensor lens2 = {{1, 2, 3, 4}, {6, 0, 5, 1}, {0, 0, 2, 6}};
      for (const IntTensor& lens : {lens1, lens2}) {
        const AttentionResult pooled = attention_pooling(masked_softmax(scores, lens), v);
        CHECK(pooled.output.shape() == Shape{3, 4, 2});
        require_masked_weights(pooled.weights.value(), lens);
        for (float x : pooled.output.value()) REQUIRE(std::isfinite(x));
      }

      // Batch independence: item b scored alone gives the same scores.
      for (std::size_t b = 0; b < 3; ++b) {
        const Tensor alone = scoring->score(slice(q, 0, b, b + 1), slice(k, 0, b, b + 1)).value();
        const Tensor together = slice(scores, 0, b, b + 1).value();
        CHECK(xt::allclose(alone, together, 1e-5, 1e-5));
      }
      // A declared dot product (fused attention computes scale q k^T instead of calling score) holds.
      if (const std::optional<float> scale = scoring->dot_product_scale())
        CHECK(xt::allclose(scores.value(), bmm(q, k, false, true, *scale).value(), 1e-5, 1e-6));

      require_gradients([&] { return attention_pooling(masked_softmax(scoring->score(q, k), IntTensor{6, 3, 1}), v).output; },
                        leaves_of(store, {{"q", q}, {"k", k}, {"v", v}}));

      // Queries and keys of different sizes: either supported, or refused at construction.
      ParamStore other;
      std::shared_ptr<ScoringFunction> mixed;
      try {
        mixed = registries.scoring.create(name, ScoringArgs{ParamScope(other, rng, "m"), defaults, 3, 5});
      } catch (const std::invalid_argument& e) {
        CHECK_THAT(e.what(), Catch::Contains("size"));
      }
      if (mixed) {
        Var q3 = leaf(randn({3, 4, 3}, rng));
        CHECK(mixed->score(q3, k).shape() == Shape{3, 4, 6});
        require_gradients([&] { return mixed->score(q3, k); }, leaves_of(other, {{"q", q3}, {"k", k}}));
      }
    }
  }
}

TEST_CASE("conformance: every normalizer, held to its declared traits", "[conformance][normalizers]") {
  const Registries& registries = test::all_plugins();
  REQUIRE(registries.normalizers.names().size() >= 4);
  for (const std::string& name : registries.normalizers.names()) {
    DYNAMIC_SECTION("normalizer '" << name << "'") {
      Rng rng(5);
      ParamStore store;
      const Options defaults;
      auto normalizer = registries.normalizers.create(name, NormalizerArgs{ParamScope(store, rng, "n"), defaults});
      const NormalizerTraits traits = normalizer->traits();
      Tensor raw = randn({3, 4, 6}, rng);
      if (traits.non_negative_scores_only) raw = xt::abs(raw) + 0.1f;
      Var scores = leaf(raw);
      for (const IntTensor& lens : {IntTensor{6, 2, 0}, IntTensor{{1, 2, 3, 4}, {6, 0, 5, 1}, {0, 0, 2, 6}}}) {
        const Var weights = normalizer->normalize(scores, lens);
        REQUIRE(weights.shape() == scores.shape());
        require_masked_weights(weights.value(), lens, traits.rows_sum_to_one);
      }
      // Batch independence: item b alone gets the same weights.
      const Var together = normalizer->normalize(scores, IntTensor{6, 3, 1});
      for (std::size_t b = 0; b < 3; ++b) {
        const int len[] = {6, 3, 1};
        const Tensor alone = normalizer->normalize(slice(scores, 0, b, b + 1), IntTensor{len[b]}).value();
        CHECK(xt::allclose(alone, slice(together, 0, b, b + 1).value(), 1e-6, 1e-6));
      }
      if (traits.masked_softmax)  // declared: fused attention computes masked_softmax instead of calling normalize
        CHECK(xt::allclose(together.value(), masked_softmax(scores, IntTensor{6, 3, 1}).value(), 1e-6, 1e-6));
      if (traits.non_negative_scores_only)
        CHECK_THROWS_WITH(normalizer->normalize(leaf(-raw), IntTensor{6, 3, 1}), Catch::Contains("negative"));
      // Piecewise-linear normalizers (sparsemax) have kinks: a small step stays on one piece.
      require_gradients([&] { return normalizer->normalize(scores, IntTensor{6, 3, 1}); },
                        leaves_of(store, {{"scores", scores}}), 1e-3f);
    }
  }
}

namespace {

// The valid keys of 4 rows of 6 queries: causal, j <= i; bidirectional, lengths 6, 6, 4, 4.
IntTensor attention_lens(bool causal) {
  if (!causal) return IntTensor{6, 6, 4, 4};
  IntTensor lens = IntTensor::from_shape({4, 6});
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t i = 0; i < 6; ++i) lens(r, i) = static_cast<int>(i + 1);
  return lens;
}

// The attention weights [4, 6, 6] of x [2, 6, 8] at positions first .. first + 5 through the
// scheme (2 heads of size 4, Q = K = split(add_to_input(x))), as an attention layer computes them.
Var weights_through(const CheckedPositional& s, const Var& x, std::size_t first, bool causal) {
  const Var q = split_heads(s.add_to_input(x, first), 2);
  Var scores = bmm(s.rotate(q, first, Role::queries), s.rotate(q, first, Role::keys), false, true) * 0.5f;
  if (const Var b = s.bias(first, 6, first, 6); b.defined()) scores = scores + index_select(b, 0, IntTensor{0, 1, 0, 1});
  return masked_softmax(scores, attention_lens(causal));
}

}  // namespace

TEST_CASE("conformance: every positional scheme, held to its declared traits", "[conformance][positional]") {
  const Registries& registries = test::all_plugins();
  REQUIRE(registries.positional.names().size() >= 6);
  for (const std::string& name : registries.positional.names())
    for (const bool causal : {true, false}) {
      DYNAMIC_SECTION("positional scheme '" << name << "', " << (causal ? "causal" : "bidirectional")) {
        Rng rng(5);
        ParamStore store;
        const Options defaults;
        const ParamScope scope(store, rng, "positional");
        const CheckedPositional s = make_positional(registries, PluginChoice{name, {}, ""}, scope, PositionalArgs{scope, defaults, 8, 2, 4, 64, causal});
        for (const auto& [_, p] : store.items()) p.mutable_value() = 0.5f * randn(p.shape(), rng);  // (t5_bias starts at 0)
        Var x = leaf(randn({2, 6, 8}, rng));
        const Var at0 = weights_through(s, x, 0, causal);
        require_masked_weights(at0.value(), attention_lens(causal), true);
        if (s.traits.relative)
          for (const std::size_t shift : {std::size_t{1}, std::size_t{40}}) {
            INFO("every position shifted by " << shift);
            CHECK(xt::allclose(weights_through(s, x, shift, causal).value(), at0.value(), 1e-4, 1e-5));
          }
        if (s.traits.max_positions > 0)
          CHECK_THROWS_WITH(weights_through(s, x, s.traits.max_positions - 5, causal), Catch::Contains("covers positions"));
        // Decoding with a key/value cache asks for the newest positions alone: positions 2..5
        // asked for by themselves are rows 2..5 of the whole.
        const Var later = slice(x, 1, 2, 6), q = split_heads(x, 2), q_later = slice(q, 1, 2, 6);
        CHECK(xt::allclose(s.add_to_input(later, 2).value(), slice(s.add_to_input(x, 0), 1, 2, 6).value(), 1e-6, 1e-6));
        for (const Role role : {Role::queries, Role::keys})
          CHECK(xt::allclose(s.rotate(q_later, 2, role).value(), slice(s.rotate(q, 0, role), 1, 2, 6).value(), 1e-5, 1e-6));
        if (const Var whole = s.bias(0, 6, 0, 6); whole.defined())
          CHECK(xt::allclose(s.bias(2, 4, 0, 6).value(), slice(whole, 1, 2, 6).value(), 1e-6, 1e-6));
        require_gradients([&] { return bmm(weights_through(s, x, 3, causal), split_heads(x, 2)); }, leaves_of(store, {{"x", x}}));
      }
    }
}

TEST_CASE("conformance: every RNN cell, through a 2-layer bidirectional RNN with padding", "[conformance][cells]") {
  const Registries& registries = test::all_plugins();
  for (const std::string& name : registries.cells.names()) {
    DYNAMIC_SECTION("RNN cell '" << name << "'") {
      Rng rng(5);
      ParamStore store;
      RnnConfig config;
      config.cell = {name, {}, {}};
      config.input_size = 3;
      config.hidden_size = 4;
      config.layers = 2;
      config.bidirectional = true;
      const Rnn rnn(registries, ParamScope(store, rng, "rnn"), config);

      Var x = leaf(randn({3, 5, 3}, rng));
      const IntTensor lens = {5, 2, 1};
      const RnnResult out = rnn(x, lens);
      REQUIRE(out.outputs.shape() == Shape{3, 5, 8});
      REQUIRE(out.states.size() == 4);
      for (const CellState& s : out.states)
        for (const Var& part : s) CHECK(part.shape() == Shape{3, 4});

      // Outputs past a sequence's end are 0; each sequence alone, unpadded, gives the same
      // outputs and final states (padding and batch independence).
      for (std::size_t b = 0; b < 3; ++b) {
        const std::size_t len = static_cast<std::size_t>(lens(b));
        for (std::size_t t = len; t < 5; ++t)
          for (std::size_t j = 0; j < 8; ++j) CHECK(out.outputs.value()(b, t, j) == 0.0f);
        const RnnResult alone = rnn(slice(slice(x, 0, b, b + 1), 1, 0, len), std::nullopt);
        CHECK(xt::allclose(alone.outputs.value(), slice(slice(out.outputs, 0, b, b + 1), 1, 0, len).value(), 1e-5, 1e-5));
        for (std::size_t s = 0; s < out.states.size(); ++s)
          for (std::size_t p = 0; p < out.states[s].size(); ++p)
            CHECK(xt::allclose(alone.states[s][p].value(), slice(out.states[s][p], 0, b, b + 1).value(), 1e-5, 1e-5));
      }

      require_gradients([&] {
        const RnnResult r = rnn(x, lens);
        return concat({reshape(r.outputs, {3, 40}), r.states.back().back()}, 1);
      }, leaves_of(store, {{"x", x}}));
    }
  }
}

TEST_CASE("conformance: every attention mode, with and without learned projections", "[conformance][modes]") {
  const Registries& registries = test::all_plugins();
  for (const std::string& name : registries.modes.names())
    for (const bool project : {false, true}) {
      DYNAMIC_SECTION("attention mode '" << name << "'" << (project ? " with projections" : "")) {
        Rng rng(7);
        ParamStore store;
        AttentionConfig config;
        config.mode.name = name;
        if (project) {
          config.mode.options.set("project", "true");
          config.mode.options.set("dim", "6");
        }
        config.scoring = {"general", {}, {}};  // accepts queries and keys of different sizes
        std::size_t query_dim = 0;
        const std::optional<Attention> built = build_mode(registries, ParamScope(store, rng, "att"), config, query_dim);
        if (!built) continue;
        const Attention& attention = *built;
        Var query = leaf(randn({2, 5, query_dim}, rng)), key = leaf(randn({2, 5, 4}, rng)), value = leaf(randn({2, 5, 5}, rng));
        const AttentionSources sources{query, key, value};
        const IntTensor lens = {5, 0};
        const AttentionResult out = attention(sources, lens);
        CHECK(out.output.shape() == Shape{2, 5, attention.output_dim()});
        REQUIRE(out.weights.shape() == Shape{2, 5, 5});
        // The mode may tighten the mask (causal); every weight outside the caller's mask is 0.
        const Tensor& w = out.weights.value();
        for (std::size_t i = 0; i < 5; ++i)
          for (std::size_t j = 0; j < 5; ++j) CHECK(w(1, i, j) == 0.0f);
        for (std::size_t i = 0; i < 5; ++i) {
          double total = 0.0;
          for (std::size_t j = 0; j < 5; ++j) total += w(0, i, j);
          CHECK(total == Approx(1.0).margin(1e-5));
        }
        for (float v : out.output.value()) REQUIRE(std::isfinite(v));

        require_gradients([&] { return attention(sources, IntTensor{5, 3}).output; },
                          leaves_of(store, {{"query", query}, {"key", key}, {"value", value}}));
      }
    }
}

TEST_CASE("conformance for outside plugins: --plugin more than once, sections by name, typos fail", "[conformance][meta]") {
  const std::string program = std::string(ATTNLAB_BUILD_ROOT) + "/tests/attnlab-tests";
  const std::string bad_dir = ATTNLAB_BAD_PLUGIN_DIR;
  const std::string plugins = " --plugin " + bad_dir + "/libbad-wrong_state.so --plugin " + bad_dir + "/libbad-wrong_query_dim.so";
  auto run = [&](const std::string& test_case, const std::string& section, std::string& output) {
    const std::string command = program + " '" + test_case + "' -r compact" + plugins + " -c \"" + section + "\" 2>&1";
    const attn::test::CommandOutput result = attn::test::command_output(command);
    output = result.text;
    return result.status;
  };
  const std::string cells = "[conformance][cells]", modes = "[conformance][modes]";
  std::string out;
  CHECK(run(cells, "RNN cell 'gru'", out) == 0);  // both libraries loaded, a good plugin passes
  INFO(out);
  CHECK(run(cells, "RNN cell 'wrong_state'", out) != 0);  // the first library's cell is checked...
  CHECK_THAT(out, Catch::Contains("RNN cell 'wrong_state' (plugin " + bad_dir + "/libbad-wrong_state.so) returned from step()"));
  CHECK(run(modes, "attention mode 'wrong_query_dim'", out) != 0);  // ...and the second's mode
  CHECK_THAT(out, Catch::Contains("formed queries of shape"));
  CHECK(run(cells, "RNN cell 'wrong_stat'", out) != 0);  // a typo fails instead of passing empty
  CHECK_THAT(out, Catch::Contains("no section named \"RNN cell 'wrong_stat'\" ran"));
}
