#include "lab/analysis/report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "lab/analysis/pictures.hpp"
#include "lab/analysis/report_assets.hpp"
#include "lab/analysis/report_heads.hpp"
#include "lab/analysis/report_data.hpp"
#include "lab/analysis/svg.hpp"
#include "lab/results/results_format.hpp"

namespace attn {
namespace {

// Tables (caption, header, cells) as HTML, each in a box that scrolls when the table is wider
// or longer than the page has room for.
std::string html_tables(const std::vector<Table>& tables) {
  std::ostringstream out;
  for (const Table& t : tables) {
    if (!t.caption.empty()) out << "<p class=\"muted\">" << svg::escape(t.caption) << "</p>\n";
    out << "<div class=\"table-scroll\"><table><tr>";
    for (const std::string& h : t.header) out << "<th>" << svg::escape(h) << "</th>";
    out << "</tr>\n";
    for (const auto& line : t.cells) {
      out << "<tr>";
      for (const std::string& c : line) out << "<td>" << svg::escape(c) << "</td>";
      out << "</tr>\n";
    }
    out << "</table></div>\n";
  }
  return out.str();
}

// The attention metrics of the final models per sweep point, map kind, layer and head, as
// mean ± std over the point's seeds (the comparison table has their means over layers and heads).
Table attention_metrics_table(const ResultsReader& file, const std::vector<RunInfo>& runs) {
  // (point, map, layer, head) -> metric -> one value per run
  std::map<std::tuple<std::string, std::string, std::size_t, std::size_t>, std::map<std::string, std::vector<double>>> cells;
  std::vector<std::string> order;
  std::set<std::string> metric_names;
  for (const RunInfo& r : runs) {
    if (!succeeded(r.status)) continue;
    const std::string label = sweep_point_label(r.point);
    if (std::find(order.begin(), order.end(), label) == order.end()) order.push_back(label);
    for (const MapMetrics& m : file.attention_metrics(r.id))
      for (const auto& [metric, values] : m.values)
        for (std::size_t i = 0; i < values.size() && m.heads > 0; ++i) {
          cells[{label, m.map, i / m.heads, i % m.heads}][metric].push_back(values[i]);
          metric_names.insert(metric);
        }
  }
  Table t{"attention of the final models on the probe set, per layer and head: mean ± std over seeds",
          {"sweep point", "map", "layer", "head"}, {}};
  t.header.insert(t.header.end(), metric_names.begin(), metric_names.end());
  for (const std::string& label : order)
    for (const auto& [key, metrics] : cells) {
      const auto& [point, map, layer, head] = key;
      if (point != label) continue;
      std::vector<std::string> line{point, map, std::to_string(layer), std::to_string(head)};
      for (const std::string& name : metric_names)
        line.push_back(metrics.count(name) ? format_mean_std(metrics.at(name)) : "-");
      t.cells.push_back(std::move(line));
    }
  return t;
}

// The run's config as YAML with the lines of the keys it was given by the sweep or by --set
// marked: a key's dotted path is followed through the indentation of the lines above it.
std::string highlighted_config(const std::string& yaml, const SweepPoint& swept, const SweepPoint& set) {
  std::ostringstream out;
  std::vector<std::pair<std::size_t, std::string>> path;  // (indent, key) of the enclosing lines
  std::istringstream lines(yaml);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t indent = line.find_first_not_of(' '), colon = line.find(':');
    std::string origin;
    if (indent != std::string::npos && colon != std::string::npos && line[indent] != '-' && line[indent] != '#') {
      while (!path.empty() && path.back().first >= indent) path.pop_back();
      path.emplace_back(indent, line.substr(indent, colon - indent));
      std::string dotted;
      for (const auto& part : path) dotted += (dotted.empty() ? "" : ".") + part.second;
      const auto names = [&](const SweepPoint& p) {
        return std::any_of(p.begin(), p.end(), [&](const auto& kv) { return kv.first == dotted; });
      };
      if (names(set)) origin = "set with --set";
      else if (names(swept)) origin = "swept";
    }
    if (origin.empty()) out << svg::escape(line) << "\n";
    else out << "<mark title=\"" << origin << "\">" << svg::escape(line) << "</mark>  <span class=\"muted\"># " << origin << "</span>\n";
  }
  return out.str();
}

void run_settings(const ResultsReader& file, const RunInfo& r, std::ostringstream& out) {
  const auto list = [&](const char* label, const SweepPoint& values) {
    if (values.empty()) return;
    out << "<p>" << label << ":";
    for (const auto& [key, value] : values) out << " <mark><code>" << svg::escape(key) << " = " << svg::escape(value) << "</code></mark>";
    out << "</p>\n";
  };
  list("swept", r.point);
  list("set with <code>--set</code>", r.overrides);
  out << "<details><summary>config of this run (the values above marked)</summary><pre class=\"config\">"
      << highlighted_config(file.config(r.id), r.point, r.overrides) << "</pre></details>\n";
}

void run_section(const ResultsReader& file, const RunInfo& r, std::ostringstream& out) {
  out << "<div class=\"run" << (succeeded(r.status) ? "" : " bad") << "\" id=\"run-" << svg::escape(r.id) << "\"><h3>"
      << svg::escape(r.id) << "</h3>\n<p>status <b>" << to_string(r.status) << "</b>";
  if (!r.error.empty()) out << ": " << svg::escape(r.error);
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.2f", r.wall_seconds);
  out << " &middot; seed " << r.seed << " &middot; " << r.epochs_done << " epochs &middot; " << wall << " s</p>\n";
  run_settings(file, r, out);
  if (!r.metrics.empty()) {
    Table t{"", {}, {{}}};
    for (const auto& [m, v] : r.metrics) {
      if (is_length_metric(m)) continue;  // (the panel "At other lengths")
      t.header.push_back(m);
      t.cells[0].push_back(format_number(v));
    }
    out << html_tables({t});
  }
  if (has_fit(file, r.id)) out << "<div class=\"pictures\">" << fit_picture(file, {r.id}) << "</div>\n";
  if (draws_on_input(file, r.id)) {  // its first recorded example, the heads' mean: over the image, on the graph, above the spectrogram
    AttentionView view;
    view.average = true;
    out << "<div class=\"pictures input-attention\">" << attention_picture(file, r.id, view) << "</div>\n";
  }
  out << "</div>\n";
}

struct Section {
  std::string id, title, body;
  std::vector<SectionPart> parts = {};  // places in it the table of contents lists
};

std::vector<Section> sections(const ResultsReader& file, const std::vector<RunInfo>& runs) {
  std::vector<Section> s;
  const Summary summary = summarize(runs);
  s.push_back({"comparison", "Comparison",
               "<p class=\"muted\">One row per sweep point; mean &plusmn; standard deviation over seeds of the final metrics.</p>\n" +
                   html_tables(summary_tables(summary, main_table_metrics(summary)))});
  const Table metrics = attention_metrics_table(file, runs);
  if (!metrics.cells.empty()) s.push_back({"attention-metrics", "Attention metrics", html_tables({metrics})});
  s.push_back({"curves", "Training curves",
               "<p class=\"muted\">Each history column per sweep point: the mean over seeds, and a band of &plusmn; one "
               "standard deviation.</p><div id=\"curves-panel\"></div>\n"});
  if (std::any_of(runs.begin(), runs.end(), [&](const RunInfo& r) { return !file.length_metrics(r.id).empty(); }))
    s.push_back({"lengths", "At other lengths",
                 "<p class=\"muted\">The final model evaluated with inputs of each length of <code>evaluation.lengths</code> (a "
                 "text's context, a task's source length): each metric against the length, the mean over seeds and a band of "
                 "&plusmn; one standard deviation.</p><div id=\"lengths-panel\"></div>\n"});
  if (SectionBody detectors = detectors_section(file, runs); !detectors.html.empty())
    s.push_back({"detectors", "Head detectors", detectors.html, detectors.parts});
  if (SectionBody heads = heads_section(file, runs); !heads.html.empty())
    s.push_back({"heads", "Heads taken apart", heads.html, heads.parts});
  s.push_back({"explorer", "Attention explorer",
               "<p class=\"muted\">Every layer and head of a run's maps. Hover a heatmap cell for its weight, a token for its "
               "lines (thickness = weight); the slider moves over the snapshots of <code>record.epochs</code>. The orange "
               "outline marks a task's gold key. A map whose rows do not all sum to 1 (a sigmoid or ReLU normalizer) has a "
               "column &Sigma; of each row's sum. The explorer opens on the head with the most structure: the largest mean "
               "over queries of 1 &minus; entropy / log(the keys the query can see), on each run's first example (0: uniform "
               "attention, 1: each query on one key).</p><div id=\"explorer-panel\"></div>\n"});
  s.push_back({"side-by-side", "Side by side",
               "<p class=\"muted\">Two runs on the same probe example (the probe set is the same for every run and seed), "
               "and B &minus; A. Rows are query positions and columns key positions, the same in all three panels; a place one "
               "run has and the other has not (a longer prediction) is grey.</p><div id=\"compare-panel\"></div>\n"});
  std::ostringstream each;
  for (const RunInfo& r : runs) run_section(file, r, each);
  s.push_back({"runs", "Runs", each.str()});
  s.push_back({"spec", "Spec", "<pre>" + svg::escape(file.header().spec) + "</pre>\n"});
  return s;
}

}  // namespace

std::string html_report(const std::string& path) {
  const ResultsReader file(path);
  const ResultsHeader h = file.header();
  const std::vector<RunInfo> runs = file.runs();
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>attnlab report: " << svg::escape(h.name)
      << "</title><style>" << report_css << "</style></head><body>\n";
  out << "<h1>" << svg::escape(h.name) << "</h1>\n<p class=\"muted\">" << svg::escape(path) << " &middot; spec "
      << svg::escape(h.spec_path) << " &middot; created " << svg::escape(h.created) << " &middot; " << runs.size() << " of "
      << h.planned_runs << " runs &middot; attnlab " << svg::escape(h.attnlab_version) << "</p>\n"
      << "<noscript><p><b>The explorer, side-by-side and curve panels need JavaScript</b> (it is in this file; nothing is "
         "downloaded).</p></noscript>\n";
  const std::vector<Section> parts = sections(file, runs);
  out << "<nav class=\"toc\"><b>Contents</b><ol>";
  for (const Section& s : parts) {
    out << "<li><a href=\"#" << s.id << "\">" << s.title << "</a>";
    if (!s.parts.empty()) {
      out << "<ol class=\"parts\">";
      for (const SectionPart& p : s.parts) out << "<li><a href=\"#" << p.id << "\">" << svg::escape(p.title) << "</a></li>";
      out << "</ol>";
    }
    out << "</li>";
  }
  out << "</ol></nav>\n";
  for (const Section& s : parts) out << "<section id=\"" << s.id << "\"><h2>" << s.title << "</h2>\n" << s.body << "</section>\n";
  out << "<p class=\"muted\">Generated by <code>attnlab report</code>: one file, no network. Each picture's SVG button saves "
         "it as an .svg file.</p>\n"
      << "<script type=\"application/json\" id=\"attnlab-data\">" << report_data(file, runs) << "</script>\n"
      << "<script>" << report_viewer_js << "</script>\n</body></html>\n";
  return out.str();
}

}  // namespace attn
