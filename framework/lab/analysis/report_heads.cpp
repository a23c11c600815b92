#include "lab/analysis/report_heads.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "lab/analysis/svg.hpp"

namespace attn {
namespace {

// One grid's metric as a heatmap, rows the layers, columns the heads; its colour scale spans
// the grid's values (changes are mostly negative: the scale is not [0, 1]).
std::string grid_heatmap(const HeadGrid& g, const std::string& metric, const std::string& title) {
  svg::Heatmap h;
  h.title = title;
  h.row_axis = "layer";
  h.column_axis = g.heads == 1 && title.find("layer's") != std::string::npos ? "all heads" : "head";
  const std::vector<double>& v = g.values.at(metric);
  double low = 0.0, high = 0.0;
  for (double x : v)
    if (std::isfinite(x)) low = std::min(low, x), high = std::max(high, x);
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

void run_analysis(const RunInfo& r, const HeadAnalysis& a, std::ostringstream& out) {
  const std::string metric = headline_metric(a.baseline);
  out << "<h3>" << svg::escape(r.id) << "</h3>\n<p class=\"muted\">" << svg::escape(metric) << " of the model: "
      << format_number(a.baseline.at(metric)) << "; a head switched off became " << (a.replacement == "mean" ? "its mean output" : "0")
      << ". Every cell's value shows when hovered; every metric's grids are in the file (<code>/runs/" << svg::escape(r.id)
      << "/heads</code>).</p>\n<div class=\"pictures\">";
  for (const HeadGrid& g : a.ablation)
    if (g.values.count(metric)) out << grid_heatmap(g, metric, g.map + ": change of " + metric + ", one head off");
  for (const HeadGrid& g : a.layer_ablation)
    if (g.values.count(metric)) out << grid_heatmap(g, metric, g.map + ": change of " + metric + ", a layer's attention off");
  for (const HeadGrid& g : a.importance)
    if (g.values.count("importance")) out << grid_heatmap(g, "importance", g.map + ": importance, normalised per layer");
  if (!a.pruning.kept.empty() && a.pruning.metrics.count(metric)) out << pruning_chart(a.pruning, metric);
  out << "</div>\n";
}

}  // namespace

std::string heads_section(const ResultsReader& file, const std::vector<RunInfo>& runs) {
  std::ostringstream out;
  for (const RunInfo& r : runs)
    if (const std::optional<HeadAnalysis> a = file.head_analysis(r.id); a && !a->baseline.empty()) run_analysis(r, *a, out);
  if (out.str().empty()) return "";
  return "<p class=\"muted\">What <code>attnlab ablate</code> measured (docs/concepts/what-attention-computes.md): each head, "
         "then each layer's attention, switched off; each head's importance; the metric as heads are pruned.</p>\n" +
         out.str();
}

}  // namespace attn
