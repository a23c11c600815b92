// The comparison table: one row per sweep point (the swept values except the seed), each
// metric as mean ± std over the seeds of that point, and the mean wall time.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace attn {

struct RunSummaryInput {
  std::string id;
  std::vector<std::pair<std::string, std::string>> point;  // swept key -> value
  std::string status;
  std::map<std::string, double> metrics;
  double wall_seconds = 0.0;
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

Summary summarize(const std::vector<RunSummaryInput>& runs);

enum class TableFormat { text, csv, markdown };
std::string format_summary(const Summary& s, TableFormat format);

}  // namespace attn
