#include "lab/analysis/report.hpp"

#include <sstream>

#include "lab/analysis/pictures.hpp"
#include "lab/analysis/svg.hpp"
#include "lab/results/results_format.hpp"

namespace attn {
namespace {

constexpr const char* style = R"(
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; } th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
pre { background: #f7f7f7; padding: 1em; overflow-x: auto; font-size: 12px; }
.run { margin: 1.5em 0; padding: 0.5em 1em; border-left: 4px solid #4a7; }
.run.bad { border-left-color: #c44; }
.pictures { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.muted { color: #777; font-size: 13px; }
)";

// The comparison tables (summary_tables) as HTML.
std::string html_table(const Summary& s) {
  std::ostringstream out;
  for (const Table& t : summary_tables(s)) {
    if (!t.caption.empty()) out << "<p class=\"muted\">" << svg::escape(t.caption) << "</p>\n";
    out << "<table><tr>";
    for (const std::string& h : t.header) out << "<th>" << svg::escape(h) << "</th>";
    out << "</tr>\n";
    for (const auto& line : t.cells) {
      out << "<tr>";
      for (const std::string& c : line) out << "<td>" << svg::escape(c) << "</td>";
      out << "</tr>\n";
    }
    out << "</table>\n";
  }
  return out.str();
}

}  // namespace

namespace {

void training_curves(const ResultsReader& file, const std::vector<RunInfo>& runs, std::ostringstream& out) {
  std::vector<std::string> trained;
  for (const auto& r : runs)
    if (r.epochs_done > 0) trained.push_back(r.id);
  if (trained.empty()) return;
  out << "<h2>Training curves</h2>\n<div class=\"pictures\">" << curves_picture(file, trained, {"train_loss"});
  for (const auto& [col, values] : file.history(trained[0]))
    if (col != "train_loss" && col.size() > 5 && col.compare(col.size() - 5, 5, "_loss") == 0)
      out << curves_picture(file, trained, {col});
  out << "</div>\n";
}

// What made this run differ from the spec as written: its sweep values and its --set values,
// highlighted, then its whole resolved config.
void run_settings(const ResultsReader& file, const RunInfo& r, std::ostringstream& out) {
  const auto list = [&](const char* label, const SweepPoint& values) {
    if (values.empty()) return;
    out << "<p>" << label << ":";
    for (const auto& [key, value] : values) out << " <mark><code>" << svg::escape(key) << " = " << svg::escape(value) << "</code></mark>";
    out << "</p>\n";
  };
  list("swept", r.point);
  list("set with <code>--set</code>", r.overrides);
  out << "<details><summary>config of this run</summary><pre>" << svg::escape(file.config(r.id)) << "</pre></details>\n";
}

void run_section(const ResultsReader& file, const RunInfo& r, std::ostringstream& out) {
  out << "<div class=\"run" << (succeeded(r.status) ? "" : " bad") << "\"><h3>" << svg::escape(r.id) << "</h3>\n<p>status <b>"
      << to_string(r.status) << "</b>";
  if (!r.error.empty()) out << ": " << svg::escape(r.error);
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.2f", r.wall_seconds);
  out << " &middot; " << wall << " s</p>\n";
  run_settings(file, r, out);
  if (!r.metrics.empty()) {
    out << "<table><tr>";
    for (const auto& [m, v] : r.metrics) out << "<th>" << svg::escape(m) << "</th>";
    out << "</tr><tr>";
    for (const auto& [m, v] : r.metrics) out << "<td>" << format_number(v) << "</td>";
    out << "</tr></table>\n";
  }
  out << "<div class=\"pictures\">\n";
  if (has_fit(file, r.id)) {
    out << fit_picture(file, {r.id});
  } else {
    std::vector<std::string> shown = recorded_examples(file, r.id);
    for (const std::string& typed : file.probes(r.id)) shown.push_back(typed);  // attnlab probe
    for (const std::string& ex : shown) {
      AttentionView view;
      view.example = ex;
      view.average = true;  // one map per layer: heads averaged (plot shows each head)
      out << attention_picture(file, r.id, view);
    }
  }
  out << "</div></div>\n";
}

}  // namespace

std::string html_report(const std::string& path) {
  const ResultsReader file(path);
  const ResultsHeader h = file.header();
  const std::vector<RunInfo> runs = file.runs();
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>attnlab report: " << svg::escape(h.name)
      << "</title><style>" << style << "</style></head><body>\n";
  out << "<h1>" << svg::escape(h.name) << "</h1>\n<p class=\"muted\">" << svg::escape(path) << " &middot; spec "
      << svg::escape(h.spec_path) << " &middot; created " << svg::escape(h.created)
      << " &middot; " << runs.size() << " of " << h.planned_runs << " runs &middot; attnlab "
      << svg::escape(h.attnlab_version) << "</p>\n";
  out << "<h2>Comparison</h2>\n<p class=\"muted\">One row per sweep point; mean &plusmn; standard deviation over seeds of the "
         "final metrics.</p>\n"
      << html_table(summarize(runs));
  training_curves(file, runs, out);
  out << "<h2>Runs</h2>\n";
  for (const RunInfo& r : runs) run_section(file, r, out);
  out << "<h2>Spec</h2>\n<pre>" << svg::escape(h.spec) << "</pre>\n"
      << "<p class=\"muted\">Generated by <code>attnlab report</code>. Multi-head maps are averaged over heads here; "
         "<code>attnlab plot --attention</code> draws each head.</p>\n</body></html>\n";
  return out.str();
}

}  // namespace attn
