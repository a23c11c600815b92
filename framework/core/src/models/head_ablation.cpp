// Ablation, head importance and the pruning curve; the math is in head_ablation.hpp.
#include "attnlab/models/head_ablation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/models/metrics.hpp"

namespace attn {
namespace {

using Kept = std::vector<std::vector<float>>;  // per site, per head: 1 kept, 0 switched off

// The gates are the model's own again when this goes out of scope, however it is left (an
// error included): no gate, no mean being recorded.
struct ClearedGates {
  HeadGates& gates;
  ~ClearedGates() {
    gates.clear();
    gates.finish_means();  // (stops a recording an error interrupted; nothing otherwise)
  }
};

Kept all_kept(const HeadGates& g) {
  Kept k;
  for (const HeadSite& s : g.sites()) k.emplace_back(s.heads, 1.0f);
  return k;
}

// Sets every site's gate to `kept` (a head at 0 becomes its mean when `means` is given).
void set_gates(HeadGates& g, const Kept& kept, const std::vector<Tensor>& means) {
  g.clear();
  for (std::size_t s = 0; s < kept.size(); ++s) {
    Tensor gate = Tensor::from_shape({kept[s].size()});
    std::copy(kept[s].begin(), kept[s].end(), gate.begin());
    g.set(s, constant(std::move(gate)), means.empty() ? Tensor() : means[s]);
  }
}

// The metrics a grid keeps: the overall ones, not one per class ("valid_accuracy.<class>").
Metrics overall(const Metrics& m) {
  Metrics out;
  for (const auto& [name, value] : m)
    if (name.find('.') == std::string::npos) out[name] = value;
  return out;
}

// The grids of the model's maps (one per map kind, sites in order of first appearance), empty.
std::vector<HeadGrid> grids_of(const HeadGates& g, bool per_layer) {
  std::vector<HeadGrid> out;
  for (const HeadSite& s : g.sites()) {
    auto it = std::find_if(out.begin(), out.end(), [&](const HeadGrid& x) { return x.map == s.map; });
    if (it == out.end()) it = out.insert(out.end(), HeadGrid{s.map, 0, 0, {}});
    it->layers = std::max(it->layers, s.layer + 1);
    it->heads = per_layer ? 1 : std::max(it->heads, s.heads);
  }
  return out;
}

// grid[name][layer * heads + head] = value (NaN where a layer has fewer heads).
void put(std::vector<HeadGrid>& grids, const HeadSite& site, std::size_t head, const std::string& name, double value) {
  HeadGrid& grid = *std::find_if(grids.begin(), grids.end(), [&](const HeadGrid& x) { return x.map == site.map; });
  std::vector<double>& v = grid.values[name];
  if (v.empty()) v.assign(grid.layers * grid.heads, std::nan(""));
  v[site.layer * grid.heads + head] = value;
}

void put_deltas(std::vector<HeadGrid>& grids, const HeadSite& site, std::size_t head, const Metrics& ablated, const Metrics& base) {
  for (const auto& [name, value] : ablated)
    if (base.count(name)) put(grids, site, head, name, value - base.at(name));
}

// Every head, then every layer, switched off on its own.
void ablate(Model& model, const HeadAnalysisOptions& o, const std::vector<Tensor>& means, HeadAnalysis& out) {
  HeadGates& g = model.head_gates();
  const std::size_t total = std::accumulate(g.sites().begin(), g.sites().end(), std::size_t{0},
                                            [](std::size_t n, const HeadSite& s) { return n + s.heads + 1; });
  std::size_t done = 0;
  for (std::size_t s = 0; s < g.sites().size(); ++s) {
    const HeadSite site = g.sites()[s];
    for (std::size_t h = 0; h <= site.heads; ++h) {  // h = heads: the whole layer
      Kept kept = all_kept(g);
      if (h < site.heads) kept[s][h] = 0.0f;
      else std::fill(kept[s].begin(), kept[s].end(), 0.0f);
      if (o.progress) o.progress("ablation", done++, total);
      set_gates(g, kept, means);
      const NoGrad no_grad;
      const Metrics ablated = overall(model.evaluate(o.full_metrics));
      put_deltas(h < site.heads ? out.ablation : out.layer_ablation, site, h < site.heads ? h : 0, ablated, out.baseline);
    }
  }
}

// Per layer (site), I_h / ||I_site||_2 (Michel et al.'s normalisation).
std::vector<double> normalised(const std::vector<double>& raw) {
  double norm = 0.0;
  for (double v : raw) norm += v * v;
  norm = std::sqrt(norm);
  std::vector<double> out(raw);
  for (double& v : out) v = norm > 0 ? v / norm : 0.0;
  return out;
}

// Removes the least important 10% of all heads (of those left) at each step, recomputing the
// importance after each, and measures the model at each share kept.
PruningCurve prune(Model& model, const HeadAnalysisOptions& o, const std::vector<Tensor>& means) {
  HeadGates& g = model.head_gates();
  Kept kept = all_kept(g);
  std::size_t total = 0;
  for (const auto& k : kept) total += k.size();
  const std::size_t per_step = std::max<std::size_t>(1, (total + 5) / 10);  // 10% of all heads, rounded, at least 1
  PruningCurve curve;
  const std::size_t steps = (total + per_step - 1) / per_step + 1;
  for (std::size_t left = total, step = 0;; left -= std::min(per_step, left), ++step) {
    if (o.progress) o.progress("pruning", step, steps);
    set_gates(g, kept, means);
    curve.kept.push_back(static_cast<double>(left) / static_cast<double>(total));
    {
      const NoGrad no_grad;
      for (const auto& [name, value] : overall(model.evaluate(o.full_metrics))) curve.metrics[name].push_back(value);
    }
    if (left == 0) break;
    std::vector<std::vector<double>> importance = head_importance(model, kept, means);
    std::vector<std::pair<double, std::pair<std::size_t, std::size_t>>> order;
    for (std::size_t s = 0; s < kept.size(); ++s) {
      for (std::size_t h = 0; h < kept[s].size(); ++h)
        if (kept[s][h] == 0.0f) importance[s][h] = 0.0;  // normalised over the heads left
      const std::vector<double> n = normalised(importance[s]);
      for (std::size_t h = 0; h < kept[s].size(); ++h)
        if (kept[s][h] > 0) order.push_back({n[h], {s, h}});
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < std::min(per_step, order.size()); ++i) {
      const auto [s, h] = order[i].second;
      kept[s][h] = 0.0f;
      curve.removed.push_back(g.sites()[s].map + "/" + std::to_string(g.sites()[s].layer) + "/" + std::to_string(h));
    }
  }
  return curve;
}

}  // namespace

std::vector<std::vector<double>> head_importance(Model& model, const Kept& kept, const std::vector<Tensor>& means) {
  HeadGates& g = model.head_gates();
  const ClearedGates restore{g};
  std::vector<std::vector<double>> sums;
  for (const HeadSite& s : g.sites()) sums.emplace_back(s.heads, 0.0);
  const std::size_t n = model.evaluation_size(), batch = 32;
  for (std::size_t first = 0; first < n; first += batch) {
    std::vector<std::size_t> rows(std::min(batch, n - first));
    std::iota(rows.begin(), rows.end(), first);
    std::vector<Var> gates;
    g.clear();
    for (std::size_t s = 0; s < kept.size(); ++s) {
      Tensor xi = Tensor::from_shape({rows.size(), kept[s].size()});  // one gate per example: dL(x)/dxi
      for (std::size_t b = 0; b < rows.size(); ++b) std::copy(kept[s].begin(), kept[s].end(), xi.begin() + b * kept[s].size());
      gates.push_back(leaf(std::move(xi)));
      g.set(s, gates.back(), means.empty() ? Tensor() : means[s]);
    }
    model.evaluation_loss(rows).loss.backward();
    for (std::size_t s = 0; s < kept.size(); ++s)
      for (std::size_t i = 0; i < gates[s].grad().size(); ++i) sums[s][i % kept[s].size()] += std::abs(gates[s].grad().data()[i]);
  }
  for (auto& site : sums)
    for (double& v : site) v /= static_cast<double>(std::max<std::size_t>(n, 1));
  return sums;
}

std::string headline_metric(const Metrics& m) {
  for (const char* name : {"valid_exact_match", "valid_accuracy", "valid_bleu", "valid_ppl", "valid_loss", "trainset_exact_match",
                           "trainset_accuracy", "trainset_loss"})
    if (m.count(name)) return name;
  return m.empty() ? "" : m.begin()->first;
}

HeadAnalysis analyse_heads(Model& model, const HeadAnalysisOptions& o) {
  HeadGates& g = model.head_gates();
  if (g.sites().empty()) throw std::invalid_argument("this model has no attention heads to take apart (no attention layer is a site)");
  if (model.evaluation_size() == 0) throw std::invalid_argument("this model has no evaluation examples to measure heads on");
  const ClearedGates restore{g};
  HeadAnalysis out;
  out.replacement = o.mean_replacement ? "mean" : "zero";
  g.clear();
  std::vector<Tensor> means;
  if (o.mean_replacement) g.start_means();
  {
    const NoGrad no_grad;
    out.baseline = overall(model.evaluate(o.full_metrics));
  }
  if (o.mean_replacement) means = g.finish_means();
  out.ablation = grids_of(g, false), out.layer_ablation = grids_of(g, true), out.importance = grids_of(g, false);
  ablate(model, o, means, out);
  if (o.progress) o.progress("importance", 0, 1);
  const std::vector<std::vector<double>> raw = head_importance(model, all_kept(g), means);
  for (std::size_t s = 0; s < raw.size(); ++s) {
    const std::vector<double> n = normalised(raw[s]);
    for (std::size_t h = 0; h < raw[s].size(); ++h) {
      put(out.importance, g.sites()[s], h, "importance", n[h]);
      put(out.importance, g.sites()[s], h, "importance_raw", raw[s][h]);
    }
  }
  if (o.pruning) out.pruning = prune(model, o, means);
  return out;
}

}  // namespace attn
