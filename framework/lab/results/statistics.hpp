// Statistics over the seeds of sweep points, for `attnlab compare --metric M` (and --best):
//   95% confidence interval of a mean over n runs:  mean ± t_{0.975, n-1} s / sqrt(n)
//   Welch's t-test of two sweep points a, b (unequal variances; two-sided):
//     t = (mean_a - mean_b) / sqrt(s_a^2/n_a + s_b^2/n_b)
//     df = (s_a^2/n_a + s_b^2/n_b)^2 / ((s_a^2/n_a)^2/(n_a - 1) + (s_b^2/n_b)^2/(n_b - 1))   (Welch-Satterthwaite)
//     p = 2 P(T_df > |t|)
// Student's t distribution is Boost.Math's. Fewer than 2 runs on a side: no interval, no test.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/results/summary.hpp"

namespace attn {

struct MeanInterval {
  std::size_t n = 0;
  double mean = 0, std = 0, low = 0, high = 0;  // low, high NaN for n < 2
};
MeanInterval mean_interval(const std::vector<double>& values, double level = 0.95);

struct WelchTest {
  double difference = 0, t = 0, df = 0, p = 0;  // NaN when a side has fewer than 2 values or both no spread
};
WelchTest welch_test(const std::vector<double>& a, const std::vector<double>& b);

// The values of one metric per sweep point (over its runs), in the order given.
using PointValues = std::vector<std::pair<std::string, std::vector<double>>>;

// The interval table (one row per sweep point: n, mean, std, 95% CI) and the test table (one
// row per pair of points: difference, t, df, p) of `metric`; `what` says where the values come
// from (the final model, or the best epoch by a metric).
std::vector<Table> statistics_tables(const PointValues& points, const std::string& metric, const std::string& what);

// The epoch of a history at which `metric` was best (highest for accuracy, exact match and BLEU,
// else lowest: the rule of early stopping, larger_is_better in trainer.hpp), or none when the
// history never measured it.
std::optional<std::size_t> best_epoch(const std::vector<double>& column, const std::string& metric);

}  // namespace attn
