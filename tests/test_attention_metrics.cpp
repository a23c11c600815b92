// Attention metrics (attention_metrics.hpp) on hand-made maps whose values are known by hand:
// uniform rows, one-hot rows, half-and-half rows, sigmoid rows that do not sum to 1, padding,
// causal rows, positions (effective width), and the per-head and per-layer split.
#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/models/attention_metrics.hpp"

using namespace attn;

namespace {

// A map of one layer and one head whose rows are `rows` (keys labelled k0, k1, ...).
AttentionMap map_of(const std::string& name, const std::vector<std::vector<float>>& rows, std::vector<int> gold = {}) {
  AttentionMap m;
  m.name = name;
  m.weights = Tensor::from_shape({1, 1, rows.size(), rows[0].size()});
  for (std::size_t q = 0; q < rows.size(); ++q) {
    m.queries.push_back("q" + std::to_string(q));
    for (std::size_t k = 0; k < rows[q].size(); ++k) m.weights(0, 0, q, k) = rows[q][k];
  }
  for (std::size_t k = 0; k < rows[0].size(); ++k) m.keys.push_back("k" + std::to_string(k));
  m.gold_keys = std::move(gold);
  return m;
}

MapMetrics measure(const AttentionMap& m) {
  ExampleAttention ex;
  ex.maps.push_back(m);
  const auto out = attention_metrics({ex});
  REQUIRE(out.size() == 1);
  return out[0];
}

double value(const MapMetrics& m, const std::string& metric) { return m.values.at(metric).at(0); }

}  // namespace

TEST_CASE("attention metrics of a uniform row: entropy 1, max 1/n, n effective keys", "[metrics][attention]") {
  const MapMetrics m = measure(map_of("cross", {{0.25f, 0.25f, 0.25f, 0.25f}}));
  CHECK(value(m, "entropy") == Approx(1.0));
  CHECK(value(m, "max_weight") == Approx(0.25));
  CHECK(value(m, "effective_keys") == Approx(4.0));
  CHECK_FALSE(m.values.count("alignment"));  // no gold keys: no alignment metrics
}

TEST_CASE("attention metrics of one-hot and half-and-half rows, with gold keys", "[metrics][attention]") {
  const MapMetrics hit = measure(map_of("cross", {{0, 0, 1, 0}}, {2}));
  CHECK(value(hit, "entropy") == Approx(0.0).margin(1e-12));
  CHECK(value(hit, "effective_keys") == Approx(1.0));
  CHECK(value(hit, "alignment") == 1.0);
  CHECK(value(hit, "gold_mass") == Approx(1.0));

  const MapMetrics miss = measure(map_of("cross", {{0.5f, 0.5f, 0, 0}}, {3}));
  CHECK(value(miss, "entropy") == Approx(0.5));  // log 2 / log 4
  CHECK(value(miss, "effective_keys") == Approx(2.0));
  CHECK(value(miss, "alignment") == 0.0);
  CHECK(value(miss, "gold_mass") == 0.0);

  // Both rows in one map: each metric is the mean over the rows; a row without gold (-1) is
  // left out of alignment and gold_mass only.
  const MapMetrics both = measure(map_of("cross", {{0, 0, 1, 0}, {0.5f, 0.5f, 0, 0}, {0.25f, 0.25f, 0.25f, 0.25f}}, {2, 3, -1}));
  CHECK(value(both, "entropy") == Approx((0.0 + 0.5 + 1.0) / 3));
  CHECK(value(both, "max_weight") == Approx((1.0 + 0.5 + 0.25) / 3));
  CHECK(value(both, "alignment") == Approx(0.5));
  CHECK(value(both, "gold_mass") == Approx(0.5));
}

TEST_CASE("attention metrics measure a sigmoid row by its shape, and skip rows that weigh nothing", "[metrics][attention]") {
  const MapMetrics m = measure(map_of("cross", {{0.2f, 0.2f}, {0.0f, 0.0f}}));
  CHECK(value(m, "entropy") == Approx(1.0));      // renormalised: [0.5, 0.5]
  CHECK(value(m, "effective_keys") == Approx(2.0));
  CHECK(value(m, "max_weight") == Approx(0.2));   // the raw weight
}

TEST_CASE("attention metrics leave out padding keys and query rows, and see a causal row's own keys", "[metrics][attention]") {
  AttentionMap padded = map_of("cross", {{0.5f, 0.5f, 0.0f}, {0.1f, 0.1f, 0.8f}});
  padded.keys[2] = "<pad>";
  padded.queries[1] = "<pad>";
  const MapMetrics m = measure(padded);
  CHECK(value(m, "entropy") == Approx(1.0));  // over the 2 real keys; the <pad> query row is not counted
  CHECK(value(m, "max_weight") == Approx(0.5));

  // decoder self-attention: query 0 sees key 0 only (entropy 0 by definition), query 1 keys 0-1
  const MapMetrics causal = measure(map_of("decoder_self", {{1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.0f}}));
  CHECK(value(causal, "entropy") == Approx(0.5));  // (0 + 1) / 2
}

TEST_CASE("attention metrics: effective width from key positions (Nadaraya-Watson)", "[metrics][attention]") {
  AttentionMap m = map_of("kernel", {{0.5f, 0.5f, 0.0f}, {0.0f, 0.0f, 1.0f}});
  m.key_positions = {0.0f, 2.0f, 5.0f};
  const MapMetrics out = measure(m);
  CHECK(value(out, "effective_width") == Approx((1.0 + 0.0) / 2));  // sqrt(0.5 * 1 + 0.5 * 1), then 0
}

TEST_CASE("attention metrics are kept per layer and head, and averaged over them for summaries", "[metrics][attention]") {
  AttentionMap m;
  m.name = "encoder_self";
  m.weights = Tensor::from_shape({2, 2, 1, 2});  // [layer, head, query, key]
  const float rows[4][2] = {{1, 0}, {0.5f, 0.5f}, {0.5f, 0.5f}, {1, 0}};
  for (std::size_t lh = 0; lh < 4; ++lh)
    for (std::size_t k = 0; k < 2; ++k) m.weights(lh / 2, lh % 2, 0, k) = rows[lh][k];
  m.queries = {"a"}, m.keys = {"a", "b"};
  const MapMetrics out = measure(m);
  CHECK(out.layers == 2);
  CHECK(out.heads == 2);
  const std::vector<double> entropy = out.values.at("entropy");
  REQUIRE(entropy.size() == 4);
  CHECK(entropy[0] == Approx(0.0).margin(1e-12));
  CHECK(entropy[1] == Approx(1.0));
  CHECK(entropy[2] == Approx(1.0));
  CHECK(entropy[3] == Approx(0.0).margin(1e-12));
  CHECK(attention_metric_means({out}).at("attention.encoder_self.entropy") == Approx(0.5));
}

TEST_CASE("monotonicity: 1 for a diagonal, 0 for an anti-diagonal, the fraction of ordered pairs otherwise",
          "[metrics][attention]") {
  const MapMetrics diagonal = measure(map_of("cross", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}));
  CHECK(value(diagonal, "monotonicity") == 1.0);
  const MapMetrics reversed = measure(map_of("cross", {{0, 0, 1}, {0, 1, 0}, {1, 0, 0}}));
  CHECK(value(reversed, "monotonicity") == 0.0);
  // centres 0, 2, 1: pairs (0,2) and (0,1) in order, (2,1) not -> 2 of 3
  const MapMetrics one_back = measure(map_of("cross", {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}}));
  CHECK(value(one_back, "monotonicity") == Approx(2.0 / 3.0));
  // soft rows are measured by their centres: 0.5 then 1.5 (weights 1/2 1/2 0 0, then 0 1/2 1/2 0)
  const MapMetrics soft = measure(map_of("cross", {{0.5f, 0.5f, 0, 0}, {0, 0.5f, 0.5f, 0}}));
  CHECK(value(soft, "monotonicity") == 1.0);
  // one step has no pair; self-attention maps have no monotonicity
  CHECK_FALSE(measure(map_of("cross", {{0, 1, 0}})).values.count("monotonicity"));
  CHECK_FALSE(measure(map_of("encoder_self", {{1, 0}, {0, 1}})).values.count("monotonicity"));
}

TEST_CASE("monotonicity is the mean over examples, each example's pairs counted once", "[metrics][attention]") {
  ExampleAttention forward, backward;
  forward.maps.push_back(map_of("cross", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}));  // 1 (3 pairs)
  backward.maps.push_back(map_of("cross", {{0, 1}, {1, 0}}));                 // 0 (1 pair)
  const auto out = attention_metrics({forward, backward});
  REQUIRE(out.size() == 1);
  CHECK(out[0].values.at("monotonicity").at(0) == Approx(0.5));  // not 3/4: examples weigh the same
}

TEST_CASE("head detectors on a hand-made self-attention map: a previous-token head and an induction head", "[metrics][attention][detectors]") {
  // Tokens a b c a b c at positions 0..5, causal rows. Head 0 looks at the previous position (row
  // 0 at itself); head 1 looks, where the token occurred before, at the position just after that
  // occurrence (rows 3, 4, 5 at 1, 2, 3), and elsewhere at position 0.
  AttentionMap m;
  m.name = "decoder_self";
  m.keys = m.queries = {"a", "b", "c", "a", "b", "c"};
  m.weights = xt::zeros<float>({std::size_t{1}, std::size_t{2}, std::size_t{6}, std::size_t{6}});
  for (std::size_t q = 0; q < 6; ++q) {
    m.weights(0, 0, q, q == 0 ? 0 : q - 1) = 1.0f;
    m.weights(0, 1, q, q >= 3 ? q - 2 : 0) = 1.0f;
  }
  ExampleAttention ex;
  ex.maps.push_back(m);
  const MapMetrics d = attention_metrics({ex}).at(0);
  const auto at = [&](const std::string& metric, std::size_t head) { return d.values.at(metric).at(head); };
  CHECK(at("previous_token", 0) == Approx(1.0));
  CHECK(at("induction", 0) == Approx(0.0));       // rows 3..5 look at 2..4, not at 1..3
  CHECK(at("diagonal", 0) == Approx(1.0 / 6.0));  // row 0 only
  CHECK(at("first_token", 0) == Approx(1.0 / 5.0));  // rows 1..5: row 1 only
  CHECK(at("induction", 1) == Approx(1.0));
  CHECK(at("previous_token", 1) == Approx(1.0 / 5.0));  // row 1 looks at 0, its previous position
  CHECK(at("first_token", 1) == Approx(2.0 / 5.0));     // rows 1, 2
  // the detectors are kept per head, not averaged into the summaries
  const Metrics means = attention_metric_means({d});
  CHECK(means.count("attention.decoder_self.entropy") == 1);
  CHECK(means.count("attention.decoder_self.induction") == 0);
  // a cross map has no detectors: its queries and keys are different sequences
  m.name = "cross";
  ex.maps = {m};
  CHECK(attention_metrics({ex}).at(0).values.count("induction") == 0);
}
