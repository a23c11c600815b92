// `attnlab compare RESULTS.h5 [MORE.h5 ...] [--format F] [--best M] [--metric M]`: the comparison
// table of the runs of one or several results files; with --best, the metrics at each run's
// best epoch; with --metric, confidence intervals and Welch's t-tests between sweep points.
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "arguments.hpp"
#include "lab/results/results_format.hpp"
#include "lab/results/statistics.hpp"

namespace attn::cli {
namespace {

// A history column that is a metric of the model (not a training statistic such as lr).
bool is_metric_column(const std::string& c) {
  for (const char* prefix : {"valid_", "trainset_", "test_", "probe_", "attention."})
    if (c.rfind(prefix, 0) == 0) return true;
  return c == "train_loss";
}

// Run `r` as it was at its best epoch by `metric`: its metrics there, and "best_epoch" (from 1);
// nullopt when its history never measured `metric`.
std::optional<RunInfo> at_best_epoch(const ResultsReader& file, const RunInfo& r, const std::string& metric) {
  const HistoryColumns h = file.history(r.id);
  const auto column = std::find_if(h.begin(), h.end(), [&](const auto& c) { return c.first == metric; });
  if (column == h.end()) return std::nullopt;
  const std::optional<std::size_t> best = best_epoch(column->second, metric);
  if (!best) return std::nullopt;
  RunInfo out = r;
  out.metrics.clear();
  for (const auto& [name, values] : h)
    if (is_metric_column(name) && *best < values.size() && !std::isnan(values[*best])) out.metrics[name] = values[*best];
  out.metrics["best_epoch"] = static_cast<double>(*best + 1);
  return out;
}

// The values of `metric` per sweep point, in the order the points first appear.
PointValues point_values(const std::vector<RunInfo>& runs, const std::string& metric) {
  PointValues out;
  for (const RunInfo& r : runs) {
    if (!succeeded(r.status) || !r.metrics.count(metric)) continue;
    const std::string label = sweep_point_label(r.point);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == label; });
    if (it == out.end()) it = out.insert(out.end(), {label, {}});
    it->second.push_back(r.metrics.at(metric));
  }
  return out;
}

// Every run of every file; with several files each run's point also names its file.
std::vector<RunInfo> all_runs(const std::vector<ResultsReader>& files, const std::string& best, std::vector<std::string>& unmeasured) {
  std::vector<RunInfo> out;
  for (const ResultsReader& f : files)
    for (RunInfo r : f.runs()) {
      if (files.size() > 1) r.point.insert(r.point.begin(), {"file", std::filesystem::path(f.path()).filename().string()});
      if (best.empty()) {
        out.push_back(std::move(r));
      } else if (std::optional<RunInfo> b = at_best_epoch(f, r, best)) {
        out.push_back(std::move(*b));
      } else {
        unmeasured.push_back(r.id);
      }
    }
  return out;
}

// The main table's columns: --metrics all, a comma-separated list, or the task's main metrics.
std::vector<std::string> chosen_metrics(const Summary& s, const std::string& choice) {
  const std::vector<std::string> all = main_table_metrics(s);
  if (choice.empty()) return headline_metrics(s);
  if (choice == "all") return all;
  std::vector<std::string> out;
  std::stringstream list(choice);
  for (std::string name; std::getline(list, name, ',');) {
    if (std::find(all.begin(), all.end(), name) == all.end()) {
      std::string known;
      for (const std::string& m : all) known += (known.empty() ? "" : ", ") + m;
      throw UsageError("--metrics: no run has the metric '" + name + "'; the runs have " + known + " (or all)");
    }
    out.push_back(name);
  }
  return out;
}

int compare(const std::vector<std::string>& args) {
  const Arguments a(args, {}, {"--format", "--best", "--metric", "--metrics"});
  if (a.positional().empty()) throw UsageError("expected one or more results files");
  const std::string f = a.value("--format", "text");
  if (f != "text" && f != "csv" && f != "markdown") throw UsageError("--format must be text, csv or markdown, got '" + f + "'");
  const TableFormat format = f == "csv" ? TableFormat::csv : f == "markdown" ? TableFormat::markdown : TableFormat::text;
  std::vector<ResultsReader> files;
  for (const std::string& path : a.positional()) files.emplace_back(path);
  const std::string best = a.value("--best", ""), metric = a.value("--metric", "");
  if (!metric.empty() && format == TableFormat::csv)
    throw UsageError("--metric prints its tables as text or Markdown (--format markdown); the values per run are in --format csv without --metric");
  std::vector<std::string> unmeasured;
  const std::vector<RunInfo> runs = all_runs(files, best, unmeasured);
  if (!best.empty() && runs.empty())
    throw UsageError("--best " + best + ": no run's history has that column (a metric measured per epoch: valid_loss, valid_accuracy, ...)");
  const PointValues points = metric.empty() ? PointValues{} : point_values(runs, metric);
  if (!metric.empty() && points.empty())
    throw UsageError("--metric " + metric + ": no finished run has that metric" + (best.empty() ? "" : " at its best epoch"));
  if (!best.empty())
    std::printf("at each run's best epoch by %s (%s is best; best_epoch counts from 1)%s\n", best.c_str(),
                larger_is_better(best) ? "highest" : "lowest",
                unmeasured.empty() ? "" : (", " + std::to_string(unmeasured.size()) + " run(s) without it left out").c_str());
  if (metric.empty()) {
    const Summary summary = summarize(runs);
    std::printf("%s", format_summary(summary, format, chosen_metrics(summary, a.value("--metrics", ""))).c_str());
    return 0;
  }
  const std::string what = best.empty() ? "the final model" : "at each run's best epoch by " + best;
  for (const Table& t : statistics_tables(points, metric, what))
    std::printf("\n%s\n%s", t.caption.c_str(), render_table(t.header, t.cells, format).c_str());
  return 0;
}

}  // namespace

Command compare_command() {
  return {"compare", "print the comparison table of results files (text, CSV or Markdown), with statistics",
          "usage: attnlab compare RESULTS.h5 [MORE.h5 ...] [--format text|csv|markdown] [--metrics LIST|all]\n"
          "                       [--best METRIC] [--metric METRIC]\n"
          "  One row per sweep point: each metric as mean ± std over seeds, and wall time. Several\n"
          "  files: their runs together, each sweep point named by its file (file=NAME.h5, ...).\n"
          "  --metrics: the columns, comma-separated (valid_loss,valid_bleu), or all; by default the\n"
          "  task's main metrics. A text table wider than 100 columns is printed in parts. CSV has\n"
          "  every column.\n"
          "  --best METRIC: each run as it was at the epoch where METRIC (a column of its history)\n"
          "  was best: highest for accuracy, exact match and BLEU, else lowest; best_epoch says which.\n"
          "  --metric METRIC: instead of the table, METRIC's mean, std and 95% confidence interval\n"
          "  per sweep point, and Welch's t-test between every two points: difference, t, degrees\n"
          "  of freedom and two-sided p-value, with the number of seeds on each side.",
          compare, true};
}

}  // namespace attn::cli
