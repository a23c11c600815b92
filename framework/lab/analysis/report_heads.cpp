#include "lab/analysis/report_heads.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "lab/analysis/svg.hpp"
#include "lab/results/summary.hpp"

namespace attn {
namespace {

// One grid's metric as a heatmap, rows the layers, columns the heads. Its colour scale is
// [low, high] when given, else it spans the grid's values and 0 (changes are mostly negative).
std::string grid_heatmap(const HeadGrid& g, const std::string& metric, const std::string& title,
                         std::optional<std::pair<double, double>> range = std::nullopt) {
  svg::Heatmap h;
  h.title = title;
  h.row_axis = "layer";
  h.column_axis = g.heads == 1 && title.find("layer's") != std::string::npos ? "all heads" : "head";
  const std::vector<double>& v = g.values.at(metric);
  double low = 0.0, high = 0.0;
  for (double x : v)
    if (std::isfinite(x)) low = std::min(low, x), high = std::max(high, x);
  if (range) std::tie(low, high) = *range;
  h.vmin = low, h.vmax = high > low ? high : low + 1.0;
  for (std::size_t l = 0; l < g.layers; ++l) {
    h.row_labels.push_back(std::to_string(l));
    h.values.emplace_back(v.begin() + static_cast<std::ptrdiff_t>(l * g.heads), v.begin() + static_cast<std::ptrdiff_t>((l + 1) * g.heads));
  }
  for (std::size_t c = 0; c < g.heads; ++c) h.column_labels.push_back(std::to_string(c));
  return svg::heatmap(h);
}

std::string pruning_chart(const PruningCurve& p, const std::string& metric) {
  svg::Chart c;
  c.title = "pruning the least important heads, 10% at a time";
  c.x_axis = "share of heads kept";
  c.y_axis = metric;
  c.series.push_back({metric, p.kept, p.metrics.at(metric), svg::Series::Style::line, 0});
  return svg::chart(c);
}

// `id`, or `id`-2, -3, ... when a part of the section has it already (anchor() maps several
// names to one: "a.b" and "a-b").
std::string unused(const SectionBody& body, const std::string& id) {
  const auto taken = [&](const std::string& candidate) {
    return std::any_of(body.parts.begin(), body.parts.end(), [&](const SectionPart& p) { return p.id == candidate; });
  };
  std::string out = id;
  for (int n = 2; taken(out); ++n) out = id + "-" + std::to_string(n);
  return out;
}

// Adds a picture with its own anchor, listed as a part of the section.
void add_picture(SectionBody& body, std::ostringstream& out, const std::string& id, const std::string& title,
                 const std::string& picture) {
  const std::string anchored = unused(body, id);
  out << "<div class=\"grid\" id=\"" << anchored << "\">" << picture << "</div>";
  body.parts.push_back({anchored, title});
}

void run_analysis(const RunInfo& r, const HeadAnalysis& a, SectionBody& body) {
  const std::string metric = headline_metric(a.baseline), run = unused(body, "heads-" + anchor(r.id));
  body.parts.push_back({run, r.id});
  std::ostringstream out;
  out << "<h3 id=\"" << run << "\">" << svg::escape(r.id) << "</h3>\n<p class=\"muted\">" << svg::escape(metric)
      << " of the model: " << format_number(a.baseline.at(metric)) << "; a head switched off became "
      << (a.replacement == "mean" ? "its mean output" : "0") << ". Every cell's value shows when hovered; every metric's grids "
      << "are in the file (<code>/runs/" << svg::escape(r.id) << "/heads</code>).</p>\n<div class=\"pictures\">";
  for (const HeadGrid& g : a.ablation)
    if (g.values.count(metric))
      add_picture(body, out, run + "-ablation-" + anchor(g.map), r.id + ": " + g.map + ", one head off",
                  grid_heatmap(g, metric, g.map + ": change of " + metric + ", one head off"));
  for (const HeadGrid& g : a.layer_ablation)
    if (g.values.count(metric))
      add_picture(body, out, run + "-layers-" + anchor(g.map), r.id + ": " + g.map + ", a layer off",
                  grid_heatmap(g, metric, g.map + ": change of " + metric + ", a layer's attention off"));
  for (const HeadGrid& g : a.importance)
    if (g.values.count("importance"))
      add_picture(body, out, run + "-importance-" + anchor(g.map), r.id + ": " + g.map + ", importance",
                  grid_heatmap(g, "importance", g.map + ": importance, normalised per layer"));
  if (!a.pruning.kept.empty() && a.pruning.metrics.count(metric))
    add_picture(body, out, run + "-pruning", r.id + ": pruning curve", pruning_chart(a.pruning, metric));
  out << "</div>\n";
  body.html += out.str();
}

// The detector grids of one sweep point: per map, each detector's mean over the point's runs.
void point_detectors(const std::string& label, const std::vector<std::vector<MapMetrics>>& runs, SectionBody& body) {
  std::map<std::string, HeadGrid> grids;  // map -> detector -> sums per head, then means
  std::map<std::pair<std::string, std::string>, std::size_t> counted;  // (map, detector) -> runs
  for (const std::vector<MapMetrics>& metrics : runs)
    for (const MapMetrics& m : metrics) {
      HeadGrid& g = grids[m.map];
      g.map = m.map, g.layers = m.layers, g.heads = m.heads;
      for (const auto& [d, values] : m.values)
        if (is_head_detector(d) && values.size() == m.layers * m.heads) {
          std::vector<double>& sum = g.values[d];
          sum.resize(m.layers * m.heads, 0.0);
          for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += values[i];
          ++counted[{m.map, d}];
        }
    }
  std::ostringstream out;
  for (auto& [map, g] : grids) {
    if (g.values.empty()) continue;
    const std::string id = unused(body, "detectors-" + anchor(label) + "-" + anchor(map));
    out << "<h3 id=\"" << id << "\">" << svg::escape(label) << " &middot; " << svg::escape(map) << "</h3>\n<div class=\"pictures\">";
    body.parts.push_back({id, label + ": " + map});
    for (auto& [d, values] : g.values) {
      for (double& v : values) v /= static_cast<double>(counted[{map, d}]);
      out << "<div class=\"grid\">" << grid_heatmap(g, d, map + ": " + d, std::make_pair(0.0, 1.0)) << "</div>";
    }
    out << "</div>\n";
  }
  body.html += out.str();
}

}  // namespace

std::string anchor(const std::string& text) {
  std::string id = text;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '-';
  return id;
}

SectionBody heads_section(const ResultsReader& file, const std::vector<RunInfo>& runs) {
  SectionBody body;
  for (const RunInfo& r : runs)
    if (const std::optional<HeadAnalysis> a = file.head_analysis(r.id); a && !a->baseline.empty()) run_analysis(r, *a, body);
  if (body.html.empty()) return body;
  body.html = "<p class=\"muted\">What <code>attnlab ablate</code> measured (docs/concepts/what-attention-computes.md): each "
              "head, then each layer's attention, switched off; each head's importance; the metric as heads are pruned.</p>\n" +
              body.html;
  return body;
}

SectionBody detectors_section(const ResultsReader& file, const std::vector<RunInfo>& runs) {
  std::vector<std::string> labels;
  std::map<std::string, std::vector<std::vector<MapMetrics>>> by_label;
  for (const RunInfo& r : runs) {
    if (!succeeded(r.status)) continue;
    const std::string label = sweep_point_label(r.point);
    if (!by_label.count(label)) labels.push_back(label);
    by_label[label].push_back(file.attention_metrics(r.id));
  }
  SectionBody body;
  for (const std::string& label : labels) point_detectors(label, by_label[label], body);
  if (body.html.empty()) return body;
  body.html = "<p class=\"muted\">The head detectors of the final models on the probe set (docs/concepts/what-attention-computes.md): "
              "per layer and head, the weight a query puts on its own position (diagonal), on the one before it (previous_token), "
              "on the first (first_token) and after earlier occurrences of its token (induction); the mean over seeds, colours "
              "on [0, 1].</p>\n" + body.html;
  return body;
}

}  // namespace attn
