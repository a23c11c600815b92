// Cross-check against PyTorch (tests/golden/make_golden.py): every normalizer (sparsemax against
// the reference written in the script), every scoring function through attention pooling, every cell against torch.nn.RNNCell/GRUCell/LSTMCell with the same
// weights, multi-head attention and the sinusoidal positional encoding agree to 1e-5.
#include <catch2/catch.hpp>

#include "attnlab/attention/attention.hpp"
#include "attnlab/rnn/rnn.hpp"
#include "golden.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;
using attn::test::Golden;
using attn::test::max_scaled_error;

namespace {

// Overwrites parameter `prefix + name` with the golden "param.<name>" for every such tensor.
void load_params(const ParamStore& store, const std::string& prefix, const Golden& g,
                 const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    Var p = store.get(prefix + n);
    REQUIRE(p.shape() == shape_of(g["param." + n]));
    p.mutable_value() = g["param." + n];
  }
}

}  // namespace

TEST_CASE("every built-in normalizer matches PyTorch: weights and gradients, masked rows included", "[golden][normalizers]") {
  for (const std::string name : {"softmax", "sigmoid", "sparsemax", "kernel"}) {
    DYNAMIC_SECTION("normalizer '" << name << "'") {
      const Golden g("normalizer_" + name + ".txt");
      Var scores = leaf(g["S"]);
      ParamStore store;
      Rng rng(0);
      const Options defaults;
      auto normalizer = builtins().normalizers.create(name, NormalizerArgs{ParamScope(store, rng, "n"), defaults});
      const Var weights = normalizer->normalize(scores, g.ints("lens"));
      weights.backward(g["seed"]);
      CHECK(max_scaled_error(weights.value(), g["W"]) < 1e-5);
      CHECK(max_scaled_error(scores.grad(), g["dS"]) < 1e-5);
    }
  }
}

TEST_CASE("every scoring function matches PyTorch through attention pooling", "[golden][scoring]") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"dot", {}}, {"scaled_dot", {}}, {"general", {"W"}}, {"additive", {"W_q", "W_k", "w_v"}},
      {"gaussian", {}}, {"gaussian_learned", {"w"}}};
  for (const auto& [name, params] : cases) {
    DYNAMIC_SECTION("scoring function '" << name << "'") {
      const Golden g("scoring_" + name + ".txt");
      Var q = leaf(g["Q"]), k = leaf(g["K"]), v = leaf(g["V"]);
      ParamStore store;
      Rng rng(0);
      Options opt;
      if (name == "additive") opt.set("hidden", "6");
      auto scoring = builtins().scoring.create(name, ScoringArgs{ParamScope(store, rng, "s"), opt, q.dim(2), k.dim(2)});
      load_params(store, "s.", g, params);
      const AttentionResult r = attention_pooling(masked_softmax(scoring->score(q, k), g.ints("lens")), v);
      r.output.backward(g["seed"]);
      CHECK(max_scaled_error(r.weights.value(), g["weights"]) < 1e-5);
      CHECK(max_scaled_error(r.output.value(), g["out"]) < 1e-5);
      CHECK(max_scaled_error(q.grad(), g["dQ"]) < 1e-5);
      CHECK(max_scaled_error(k.grad(), g["dK"]) < 1e-5);
      CHECK(max_scaled_error(v.grad(), g["dV"]) < 1e-5);
      for (const std::string& p : params) {
        INFO("parameter " << p);
        CHECK(max_scaled_error(store.get("s." + p).grad(), g["grad." + p]) < 1e-5);
      }
    }
  }
}

TEST_CASE("every cell matches torch.nn.*Cell with the same weights", "[golden][cells]") {
  for (const std::string name : {"rnn", "gru", "lstm"}) {
    DYNAMIC_SECTION("cell '" << name << "'") {
      const Golden g("cell_" + name + ".txt");
      ParamStore store;
      Rng rng(0);
      RnnConfig config;
      config.cell = {name, {}, {}};
      config.input_size = 3;
      config.hidden_size = 5;
      const Rnn rnn(builtins(), ParamScope(store, rng, "rnn"), config);
      for (const std::string p : {"W_ih", "W_hh", "b_ih", "b_hh"}) store.get("rnn.layer0." + p).mutable_value() = g[p];
      Var x = leaf(g["x"]);
      const RnnResult r = rnn(x, std::nullopt);
      r.outputs.backward(g["seed"]);
      CHECK(max_scaled_error(r.outputs.value(), g["outputs"]) < 1e-5);
      CHECK(max_scaled_error(x.grad(), g["dx"]) < 1e-5);
      for (const std::string p : {"W_ih", "W_hh", "b_ih", "b_hh"}) {
        INFO("parameter " << p);
        CHECK(max_scaled_error(store.get("rnn.layer0." + p).grad(), g["d" + p]) < 1e-5);
      }
    }
  }
}

TEST_CASE("multi-head attention matches d2l's MultiHeadAttention in PyTorch", "[golden][attention]") {
  const Golden g("multi_head.txt");
  ParamStore store;
  Rng rng(0);
  AttentionConfig config;
  config.mode = {"qkv", {}, {}};
  config.scoring = {"scaled_dot", {}, {}};
  config.multi_head = MultiHead{2, 8, false};
  const Attention mha(builtins(), ParamScope(store, rng, "mha"), config, 6, 7, 3);
  for (const std::string p : {"W_q", "W_k", "W_v", "W_o"}) store.get("mha." + p + ".W").mutable_value() = g["param." + p];
  Var q = leaf(g["queries"]), k = leaf(g["keys"]), v = leaf(g["values"]);
  const AttentionResult r = mha({q, k, v}, g.ints("lens"), ForwardContext::evaluation());
  r.output.backward(g["seed"]);
  CHECK(max_scaled_error(r.output.value(), g["out"]) < 1e-5);
  CHECK(max_scaled_error(r.weights_by_head().value(), g["weights"]) < 1e-5);
  CHECK(max_scaled_error(q.grad(), g["dqueries"]) < 1e-5);
  CHECK(max_scaled_error(k.grad(), g["dkeys"]) < 1e-5);
  CHECK(max_scaled_error(v.grad(), g["dvalues"]) < 1e-5);
  for (const std::string p : {"W_q", "W_k", "W_v", "W_o"}) {
    INFO("parameter " << p);
    CHECK(max_scaled_error(store.get("mha." + p + ".W").grad(), g["grad." + p]) < 1e-5);
  }
}

TEST_CASE("every built-in positional scheme matches PyTorch inside an attention: outputs, weights, gradients", "[golden][positional]") {
  struct Case {
    std::string file, scheme;
    std::vector<std::pair<std::string, std::string>> options;
    bool causal;
  };
  const std::vector<Case> cases = {
      {"none_causal", "none", {}, true}, {"sinusoidal_causal", "sinusoidal", {}, true}, {"learned_causal", "learned", {}, true},
      {"rope_causal", "rope", {}, true}, {"rope_base100_bidirectional", "rope", {{"base", "100"}}, false},
      {"alibi_causal", "alibi", {}, true}, {"alibi_bidirectional", "alibi", {}, false},
      {"alibi_one_head_causal", "alibi", {{"heads", "1"}}, true},
      {"t5_bias_causal", "t5_bias", {{"buckets", "8"}, {"max_distance", "6"}}, true},
      {"t5_bias_bidirectional", "t5_bias", {{"buckets", "8"}, {"max_distance", "6"}}, false}};
  const std::size_t first = 3, n = 5, heads = 2;
  for (const Case& c : cases) {
    DYNAMIC_SECTION("positional '" << c.file << "'") {
      const Golden g("positional_" + c.file + ".txt");
      ParamStore store;
      Rng rng(0);
      PluginChoice choice{c.scheme, {}, ""};
      for (const auto& [k, v] : c.options) choice.options.set(k, v);
      const ParamScope scope(store, rng, "positional");
      const CheckedPositional scheme = make_positional(builtins(), choice, scope, PositionalArgs{scope, choice.options, 8, heads, 4, 16, c.causal});
      std::vector<std::string> params;
      for (const auto& [name, var] : store.items()) params.push_back(name.substr(std::string("positional.").size()));
      load_params(store, "positional.", g, params);
      Var x = leaf(g["X"]);
      const Var q = split_heads(scheme.add_to_input(x, first), heads);  // [4, 5, 4]: Q = K = V
      Var scores = bmm(scheme.rotate(q, first, Role::queries), scheme.rotate(q, first, Role::keys), false, true) * 0.5f;
      if (const Var b = scheme.bias(first, n, first, n); b.defined()) scores = scores + index_select(b, 0, IntTensor{0, 1, 0, 1});
      IntTensor lens = c.causal ? IntTensor(xt::zeros<int>({std::size_t(4), n})) : IntTensor{5, 5, 3, 3};
      if (c.causal)
        for (std::size_t r = 0; r < 4; ++r)
          for (std::size_t i = 0; i < n; ++i) lens(r, i) = static_cast<int>(i + 1);
      const Var weights = masked_softmax(scores, lens);
      const Var out = merge_heads(bmm(weights, q), heads);
      out.backward(g["seed"]);
      CHECK(max_scaled_error(out.value(), g["out"]) < 1e-5);
      CHECK(max_scaled_error(weights.value(), g["weights"]) < 1e-5);
      CHECK(max_scaled_error(x.grad(), g["dX"]) < 1e-5);
      for (const std::string& p : params) {
        INFO("parameter " << p);
        CHECK(max_scaled_error(store.get("positional." + p).grad(), g["grad." + p]) < 1e-5);
      }
    }
  }
}
