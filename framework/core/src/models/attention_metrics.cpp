#include "attnlab/models/attention_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace attn {
namespace {

// Sums of each metric over rows, and the rows each sum counts, for one (layer, head).
struct Tally {
  std::map<std::string, std::pair<double, std::size_t>> sums;
  void add(const std::string& metric, double value) {
    auto& [sum, rows] = sums[metric];
    sum += value, ++rows;
  }
};

// Adds the metrics of one row `w` (n valid keys) to `tally`.
void measure_row(const float* w, std::size_t n, int gold, const std::vector<float>& positions, Tally& tally) {
  const double total = std::accumulate(w, w + n, 0.0);
  if (n == 0 || !(total > 0.0)) return;  // an empty or all-zero row (kernel normalizer) weighs nothing
  double entropy = 0.0, centre = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double p = w[j] / total;
    if (p > 0.0) entropy -= p * std::log(p);
    if (!positions.empty()) centre += p * positions[j];
  }
  const std::size_t best = static_cast<std::size_t>(std::max_element(w, w + n) - w);
  tally.add("entropy", n > 1 ? entropy / std::log(static_cast<double>(n)) : 0.0);
  tally.add("max_weight", w[best]);
  tally.add("effective_keys", std::exp(entropy));
  if (gold >= 0 && static_cast<std::size_t>(gold) < n) {
    tally.add("alignment", best == static_cast<std::size_t>(gold) ? 1.0 : 0.0);
    tally.add("gold_mass", w[gold]);
  }
  if (!positions.empty()) {
    double spread = 0.0;
    for (std::size_t j = 0; j < n; ++j) spread += w[j] / total * (positions[j] - centre) * (positions[j] - centre);
    tally.add("effective_width", std::sqrt(spread));
  }
}

// The head detectors of row q of a self-attention map (queries and keys are the same positions,
// so the token at position q is key q's label): diagonal, previous token, first token (the
// sink, for q >= 1) and induction, the mass on the positions just after the earlier
// occurrences of the query's token (Olsson et al. 2022's prefix matching), when there are some.
void detect_row(const float* w, std::size_t n, std::size_t q, const std::vector<std::string>& tokens, Tally& tally) {
  if (q < n) tally.add("diagonal", w[q]);
  if (q == 0 || q - 1 >= n) return;
  tally.add("previous_token", w[q - 1]);
  tally.add("first_token", w[0]);
  if (q >= tokens.size()) return;
  double induction = 0.0;
  bool earlier = false;
  for (std::size_t j = 0; j < q; ++j)
    if (tokens[j] == tokens[q] && j + 1 < n) induction += w[j + 1], earlier = true;
  if (earlier) tally.add("induction", induction);
}

bool self_attention_map(const std::string& name) { return name == "encoder_self" || name == "decoder_self"; }

// The keys a query row may weigh: the labelled keys that are not padding.
std::size_t valid_keys(const AttentionMap& m) {
  const std::size_t n = m.weights.shape()[3];
  const auto pad = std::find(m.keys.begin(), m.keys.end(), "<pad>");
  return m.keys.empty() ? n : std::min<std::size_t>(n, static_cast<std::size_t>(pad - m.keys.begin()));
}

// sum_j p_j j over a row's n keys (p = w / sum w); NaN for an all-zero row.
double centre_of(const float* w, std::size_t n) {
  double total = 0.0, centre = 0.0;
  for (std::size_t j = 0; j < n; ++j) total += w[j], centre += static_cast<double>(w[j]) * static_cast<double>(j);
  return total > 0.0 ? centre / total : std::nan("");
}

// The fraction of pairs s < t of `centres` with c_s <= c_t; NaN with fewer than two.
double ordered_pairs(const std::vector<double>& centres) {
  double ordered = 0.0, pairs = 0.0;
  for (std::size_t s = 0; s < centres.size(); ++s)
    for (std::size_t t = s + 1; t < centres.size(); ++t, pairs += 1.0) ordered += centres[s] <= centres[t] ? 1.0 : 0.0;
  return pairs > 0.0 ? ordered / pairs : std::nan("");
}

void measure_map(const AttentionMap& m, std::vector<Tally>& tallies) {
  const auto& s = m.weights.shape();  // [layer, head, n_q, n_k]
  const std::size_t keys = valid_keys(m), rows = std::min<std::size_t>(s[2], m.queries.empty() ? s[2] : m.queries.size());
  for (std::size_t lh = 0; lh < s[0] * s[1]; ++lh) {
    std::vector<double> centres;  // of the measured rows (cross maps)
    for (std::size_t q = 0; q < rows; ++q) {
      if (!m.queries.empty() && m.queries[q] == "<pad>") continue;
      const int gold = q < m.gold_keys.size() ? m.gold_keys[q] : -1;
      const std::size_t n = m.name == "decoder_self" ? std::min(keys, q + 1) : keys;  // causal: keys 0..q
      const float* row = m.weights.data() + (lh * s[2] + q) * s[3];
      measure_row(row, n, gold, m.key_positions, tallies[lh]);
      if (self_attention_map(m.name) && s[2] == s[3]) detect_row(row, n, q, m.keys, tallies[lh]);
      if (m.name == "cross" && !std::isnan(centre_of(row, n))) centres.push_back(centre_of(row, n));
    }
    const double monotone = ordered_pairs(centres);
    if (!std::isnan(monotone)) tallies[lh].add("monotonicity", monotone);
  }
}

}  // namespace

double MapMetrics::mean(const std::string& metric) const {
  const std::vector<double>& v = values.at(metric);
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::vector<MapMetrics> attention_metrics(const std::vector<ExampleAttention>& examples) {
  std::vector<MapMetrics> out;
  std::map<std::string, std::vector<Tally>> tallies;  // map kind -> per (layer, head)
  for (const ExampleAttention& ex : examples)
    for (const AttentionMap& m : ex.maps) {
      const auto& s = m.weights.shape();
      auto found = std::find_if(out.begin(), out.end(), [&](const MapMetrics& mm) { return mm.map == m.name; });
      if (found == out.end()) {
        out.push_back({m.name, s[0], s[1], {}});
        tallies[m.name].resize(s[0] * s[1]);
        found = out.end() - 1;
      } else if (found->layers != s[0] || found->heads != s[1]) {
        throw std::invalid_argument("attention_metrics: map '" + m.name + "' has another number of layers or heads");
      }
      measure_map(m, tallies[m.name]);
    }
  for (MapMetrics& mm : out) {
    const std::vector<Tally>& t = tallies[mm.map];
    for (std::size_t lh = 0; lh < t.size(); ++lh)
      for (const auto& [metric, sum_rows] : t[lh].sums) {
        std::vector<double>& v = mm.values[metric];
        v.resize(t.size(), std::nan(""));
        v[lh] = sum_rows.first / static_cast<double>(sum_rows.second);
      }
  }
  return out;
}

ProbeLook look_at_probe(Model& model, const std::vector<std::size_t>& keep, bool measure) {
  std::vector<std::size_t> wanted = keep;  // the kept examples, and with metrics the first probe_size
  if (measure)
    for (std::size_t i = 0; i < probe_size; ++i) wanted.push_back(i);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  const NoGrad no_grad;
  std::vector<ExampleAttention> maps = model.record_attention(wanted);
  ProbeLook look;
  if (measure) {
    std::vector<ExampleAttention> measured;
    for (const ExampleAttention& ex : maps)
      if (ex.example < probe_size) measured.push_back(ex);
    look.metrics = attention_metrics(measured);
  }
  for (ExampleAttention& ex : maps)
    if (std::count(keep.begin(), keep.end(), ex.example)) look.kept.push_back(std::move(ex));
  return look;
}

bool is_head_detector(const std::string& metric) {
  return metric == "diagonal" || metric == "previous_token" || metric == "first_token" || metric == "induction";
}

Metrics attention_metric_means(const std::vector<MapMetrics>& metrics) {
  Metrics out;
  for (const MapMetrics& mm : metrics)
    for (const auto& [metric, values] : mm.values)
      if (!is_head_detector(metric)) out["attention." + mm.map + "." + metric] = mm.mean(metric);
  return out;
}

}  // namespace attn
