// Taking attention apart: the gates on heads (head_gates.hpp), ablation, Michel et al.'s head
// importance and the pruning curve (head_ablation.hpp), and where a mode's keys come from
// (ModeTraits: a seq2seq decoder attending to its own state has no alignment to a source).
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "attnlab/attention/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/models/attention_metrics.hpp"
#include "attnlab/models/head_ablation.hpp"
#include "attnlab/registries.hpp"
#include "lab/builtins.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;
using attn::test::reverse_task;

namespace {

std::shared_ptr<Model> small_transformer(const Data& data, ParamStore& store) {
  return attn::test::built_model("transformer", data, store,
                                 {{"d_model", "16"}, {"ffn_hidden", "32"}, {"heads", "4"}, {"layers", "1"}, {"dropout", "0"}}, 7);
}

// Head `head`'s share of W_o (its rows of the merged heads' projection) set to 0.
void zero_output_share(ParamStore& store, const std::string& attention, std::size_t head, std::size_t head_dim) {
  Tensor& w = store.get(attention + ".W_o.W").mutable_value();  // [heads * p, d]
  for (std::size_t r = head * head_dim; r < (head + 1) * head_dim; ++r)
    for (std::size_t c = 0; c < w.shape()[1]; ++c) w(r, c) = 0.0f;
}

const HeadGrid& grid(const std::vector<HeadGrid>& grids, const std::string& map) {
  for (const HeadGrid& g : grids)
    if (g.map == map) return g;
  FAIL("no grid of map " << map);
  return grids.front();
}

}  // namespace

TEST_CASE("a model's attention layers are sites with their heads; gates of 1 leave the model as it is", "[heads][gates]") {
  const Data data = reverse_task(100);
  ParamStore store;
  auto model = small_transformer(data, store);
  const std::vector<HeadSite>& sites = model->head_gates().sites();
  REQUIRE(sites.size() == 3);
  CHECK(sites[0].map == "encoder_self");
  CHECK(sites[1].map == "decoder_self");
  CHECK(sites[2].map == "cross");
  for (const HeadSite& s : sites) CHECK((s.layer == 0 && s.heads == 4 && s.head_dim == 4));
  const Metrics before = model->evaluate(false);
  for (std::size_t s = 0; s < sites.size(); ++s) model->head_gates().set(s, constant(xt::ones<float>({std::size_t{4}})));
  CHECK(model->evaluate(false).at("valid_loss") == before.at("valid_loss"));
  model->head_gates().set(2, constant(xt::zeros<float>({std::size_t{4}})));  // cross-attention off: the source is not read
  CHECK(model->evaluate(false).at("valid_loss") != before.at("valid_loss"));
  model->head_gates().clear();
  CHECK(model->evaluate(false).at("valid_loss") == before.at("valid_loss"));
  CHECK_THROWS_WITH(model->head_gates().set(0, constant(xt::ones<float>({std::size_t{3}}))), Catch::Contains("expected [4] or [B, 4]"));
}

TEST_CASE("ablation: a head whose share of W_o is 0 changes nothing and is the least important; the others do; pruning removes it first",
          "[heads][ablation]") {
  const Data data = reverse_task(100);
  ParamStore store;
  auto model = small_transformer(data, store);
  zero_output_share(store, "encoder.block0.attention", 1, 4);
  for (const bool mean : {false, true}) {
    DYNAMIC_SECTION((mean ? "replaced by the mean" : "set to 0")) {
      HeadAnalysisOptions o;
      o.mean_replacement = mean;
      o.full_metrics = false;
      const Metrics before = model->evaluate(false);
      const HeadAnalysis a = analyse_heads(*model, o);
      CHECK(a.baseline.at("valid_loss") == before.at("valid_loss"));
      CHECK(model->evaluate(false).at("valid_loss") == before.at("valid_loss"));  // the gates are cleared
      const HeadGrid& encoder = grid(a.ablation, "encoder_self");
      REQUIRE(encoder.values.at("valid_loss").size() == 4);
      CHECK(encoder.values.at("valid_loss")[1] == 0.0);
      CHECK(encoder.values.at("valid_token_acc")[1] == 0.0);
      for (const std::string map : {"encoder_self", "decoder_self", "cross"})
        for (std::size_t h = 0; h < 4; ++h) {
          if (map == "encoder_self" && h == 1) continue;
          INFO(map << " head " << h);
          CHECK(std::abs(grid(a.ablation, map).values.at("valid_loss")[h]) > 1e-6);
        }
      const HeadGrid& importance = grid(a.importance, "encoder_self");
      CHECK(importance.values.at("importance_raw")[1] == 0.0);
      CHECK(importance.values.at("importance")[1] == 0.0);
      double norm = 0.0;  // normalised per layer: unit length
      for (double v : importance.values.at("importance")) norm += v * v;
      CHECK(norm == Approx(1.0));
      CHECK(grid(a.layer_ablation, "cross").values.at("valid_loss").size() == 1);
      // 12 heads, 10% of them (1) removed at each step: 13 points from all kept to none
      REQUIRE(a.pruning.kept.size() == 13);
      CHECK(a.pruning.kept.front() == 1.0);
      CHECK(a.pruning.kept.back() == 0.0);
      REQUIRE(a.pruning.removed.size() == 12);
      CHECK(a.pruning.removed.front() == "encoder_self/0/1");
      CHECK(a.pruning.metrics.at("valid_loss").front() == before.at("valid_loss"));
    }
  }
}

TEST_CASE("head importance is E_x |dL(x)/dxi_h| per example, as central differences of each example's loss measure it",
          "[heads][importance]") {
  const Data data = reverse_task(100);
  ParamStore store;
  auto model = small_transformer(data, store);
  HeadGates& gates = model->head_gates();
  std::vector<std::vector<float>> ones;
  for (const HeadSite& s : gates.sites()) ones.emplace_back(s.heads, 1.0f);
  const std::vector<std::vector<double>> importance = head_importance(*model, ones);
  const std::size_t n = model->evaluation_size();
  REQUIRE(n == 50);
  const float eps = 1e-2f;
  for (std::size_t s = 0; s < gates.sites().size(); ++s)
    for (std::size_t h = 0; h < 4; h += 3) {
      double expected = 0.0;
      for (std::size_t x = 0; x < n; ++x) {
        double loss[2];
        for (int side = 0; side < 2; ++side) {
          Tensor xi = xt::ones<float>({std::size_t{4}});
          xi(h) += side ? eps : -eps;
          gates.set(s, constant(xi));
          loss[side] = static_cast<double>(model->evaluation_loss({x}).loss.item());
        }
        expected += std::abs(loss[1] - loss[0]) / (2.0 * eps) / static_cast<double>(n);
      }
      gates.clear();
      INFO("map " << gates.sites()[s].map << ", head " << h);
      CHECK(importance[s][h] == Approx(expected).epsilon(0.02).margin(1e-4));
    }
}

TEST_CASE("a seq2seq decoder whose mode forms its keys from the query (vvv) has a decoder_state map, not a cross map, and no alignment",
          "[heads][modes][metrics]") {
  const Data data = reverse_task(100);
  for (const std::string mode : {"qvv", "vvv"}) {
    DYNAMIC_SECTION("mode " << mode) {
      ParamStore store;
      Rng rng(3);
      Options o;
      for (const auto& [key, v] : std::vector<std::pair<std::string, std::string>>{
               {"embed", "8"}, {"hidden", "16"}, {"layers", "1"}, {"attention.mode", mode}})
        o.set(key, v);
      auto model = builtins().models.create("seq2seq", ModelArgs{builtins(), ParamScope(store, rng), o, data});
      const std::string map = mode == "vvv" ? "decoder_state" : "cross";
      REQUIRE(model->head_gates().sites().size() == 1);
      CHECK(model->head_gates().sites()[0].map == map);
      const std::vector<ExampleAttention> examples = model->record_attention({0, 1, 2});
      REQUIRE(examples.size() == 3);
      REQUIRE(examples[0].maps.size() == 1);
      CHECK(examples[0].maps[0].name == map);
      for (const MapMetrics& m : attention_metrics(examples)) {
        INFO(m.map);
        CHECK(m.values.count("alignment") == (mode == "qvv" ? 1u : 0u));
        CHECK(m.values.count("gold_mass") == (mode == "qvv" ? 1u : 0u));
        if (mode == "vvv") CHECK(m.values.count("monotonicity") == 0u);
      }
      if (mode == "vvv") CHECK(examples[0].maps[0].keys == std::vector<std::string>{"<state>"});
    }
  }
}

namespace {

// A mode that forms its keys from the query source but does not say so in its traits.
class UndeclaredSelfAttention final : public AttentionMode {
 public:
  explicit UndeclaredSelfAttention(const ModeArgs& a) : dim_(a.query_dim) {}
  FormedQkv form(const AttentionSources& s) override { return {s.query, s.query, s.query}; }
  std::size_t query_dim() const override { return dim_; }
  std::size_t key_dim() const override { return dim_; }
  std::size_t value_dim() const override { return dim_; }

 private:
  std::size_t dim_;
};

}  // namespace

TEST_CASE("the framework holds a mode to its traits: keys from the source it declares", "[heads][modes][plugins]") {
  Registries r;
  register_builtins(r);
  r.modes.add<UndeclaredSelfAttention>("undeclared", "keys from the query, undeclared");
  ParamStore store;
  Rng rng(1);
  AttentionConfig config;
  config.mode = {"undeclared", {}, ""};
  const Attention attention(r, ParamScope(store, rng, "a"), config, 4, 4, 4);
  CHECK_FALSE(attention.self_attention());
  const Var q = constant(randn({1, 2, 4}, rng)), k = constant(randn({1, 5, 4}, rng));
  CHECK_THROWS_AS(attention({q, k, k}, std::nullopt), PluginFault);
  CHECK_THROWS_WITH(attention({q, k, k}, std::nullopt), Catch::Contains("formed 2 keys from 5 key positions") &&
                                                             Catch::Contains("traits().self_attention"));
  config.mode = {"vvv", {}, ""};
  const Attention vvv(r, ParamScope(store, rng, "b"), config, 4, 4, 4);
  CHECK(vvv.self_attention());
  CHECK(vvv({q, k, k}, std::nullopt).weights.value().shape()[2] == 2);  // its keys are the 2 queries
}

