// The comparison table: one row per sweep point (the swept values except the seed), each
// metric as mean ± std over the seeds of that point, and the mean wall time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attnlab/training/trainer.hpp"
#include "lab/spec/spec.hpp"

namespace attn {

// What a results file says of one run (everything but its arrays).
struct RunInfo {
  std::string id;
  SweepPoint point;
  SweepPoint overrides;  // keys set by --set
  RunStatus status = RunStatus::failed;
  std::string error;
  Metrics metrics;
  double wall_seconds = 0.0;
  std::uint64_t seed = 0;
  std::size_t index = 0, epochs_done = 0, resumed_from_epoch = 0;
};

struct SummaryRow {
  std::string point;  // "scoring=dot, cell=gru" (or "(single point)")
  std::size_t runs = 0, ok = 0;  // runs, and those that finished or stopped early
  std::map<std::string, std::pair<double, double>> metrics;  // mean, std over the ok runs
  double wall_mean = 0.0;
};

struct Summary {
  std::vector<std::string> metrics;  // column order
  std::vector<SummaryRow> rows;
};

Summary summarize(const std::vector<RunInfo>& runs);
// A sweep point's label, the row name of the tables: "scoring=dot, cell=gru" (every swept key
// but the seed, by its last part), or "(single point)". Runs of one label differ only by seed.
std::string sweep_point_label(const SweepPoint& point);
// Mean and sample standard deviation (0 for one value; NaN, NaN for none).
std::pair<double, double> mean_and_std(const std::vector<double>& values);
// "mean ± std" by format_number ("mean" alone for one value, "-" for none).
std::string format_mean_std(const std::vector<double>& values);

enum class TableFormat { text, csv, markdown };
// A table as cells, for text, Markdown and HTML alike.
struct Table {
  std::string caption;  // "" for none
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> cells;
  std::size_t keys = 1;  // the first columns name the row (sweep point, map): repeated when text wraps
};
// The metrics of the main table (one row per sweep point): every metric that is not per map,
// class or length, in the summary's order.
std::vector<std::string> main_table_metrics(const Summary& s);
// The task's main metrics, the main table's default on a terminal: the validation loss (else the
// training loss) and up to two headline metrics, the first there are of: exact match, BLEU,
// perplexity, bits per token, accuracy, test MSE.
std::vector<std::string> headline_metrics(const Summary& s);
// The comparison tables: the metrics per sweep point, then (when runs were evaluated at other
// lengths) the headline metrics per sweep point and length, then (when runs measured attention)
// the attention metrics per sweep point and map kind; numbers by format_number, "mean ± std".
// `shown`: the main table's metric columns (main_table_metrics for all of them).
std::vector<Table> summary_tables(const Summary& s, const std::vector<std::string>& shown);
// Text and Markdown: summary_tables' tables (the metrics, by length, per class, attention). CSV: one table of every column, named as the
// file's /summary datasets (runs_ok, <metric>_mean...), at full precision.
std::string format_summary(const Summary& s, TableFormat format, const std::vector<std::string>& shown);
// The width text tables keep to: wider ones are printed in parts, each with the key columns.
constexpr std::size_t table_columns = 100;
// A table as aligned text (header, a rule, rows; in parts of at most table_columns, each
// repeating the first `keys` columns) or Markdown.
std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& cells,
                         TableFormat format, std::size_t keys = 1);
// Attention metrics are named "attention.<map>.<metric>": is `name` one, and its two parts.
bool is_attention_metric(const std::string& name);
// Whether `name` is a classifier's metric of one class ("valid_accuracy.<class>").
bool is_per_class_metric(const std::string& name);
// A metric of the final model at another input length (evaluation.lengths) is named
// "<metric>@<length>" ("valid_ppl@512", digits after the last '@'): is `name` one, and its two parts.
bool is_length_metric(const std::string& name);
std::pair<std::string, std::size_t> length_metric_parts(const std::string& name);
std::string length_metric_name(const std::string& metric, std::size_t length);
std::pair<std::string, std::string> attention_metric_parts(const std::string& name);
// The one rounding rule of every number a person reads (compare, report, inspect): 4 decimals,
// or 3 significant digits when very large or very small.
std::string format_number(double v);

}  // namespace attn
