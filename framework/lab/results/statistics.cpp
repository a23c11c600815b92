#include "lab/results/statistics.hpp"

#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include "attnlab/training/trainer.hpp"

namespace attn {

MeanInterval mean_interval(const std::vector<double>& v, double level) {
  MeanInterval m;
  m.n = v.size();
  std::tie(m.mean, m.std) = mean_and_std(v);
  m.low = m.high = std::nan("");
  if (m.n < 2) return m;
  const boost::math::students_t t(static_cast<double>(m.n - 1));
  const double half = boost::math::quantile(boost::math::complement(t, (1.0 - level) / 2.0)) * m.std / std::sqrt(static_cast<double>(m.n));
  m.low = m.mean - half, m.high = m.mean + half;
  return m;
}

WelchTest welch_test(const std::vector<double>& a, const std::vector<double>& b) {
  WelchTest w;
  const auto [mean_a, std_a] = mean_and_std(a);
  const auto [mean_b, std_b] = mean_and_std(b);
  w.difference = mean_a - mean_b;
  w.t = w.df = w.p = std::nan("");
  if (a.size() < 2 || b.size() < 2) return w;
  const double va = std_a * std_a / static_cast<double>(a.size()), vb = std_b * std_b / static_cast<double>(b.size());
  if (!(va + vb > 0.0)) return w;  // no spread on either side: no test
  w.t = w.difference / std::sqrt(va + vb);
  w.df = (va + vb) * (va + vb) / (va * va / static_cast<double>(a.size() - 1) + vb * vb / static_cast<double>(b.size() - 1));
  w.p = 2.0 * boost::math::cdf(boost::math::complement(boost::math::students_t(w.df), std::abs(w.t)));
  return w;
}

namespace {

std::string number_or_dash(double v) { return std::isnan(v) ? "-" : format_number(v); }

}  // namespace

std::vector<Table> statistics_tables(const PointValues& points, const std::string& metric, const std::string& what) {
  Table intervals{metric + " over seeds, " + what + " (95% confidence interval of the mean: mean ± t(0.975, n-1) std / sqrt(n))",
                  {"sweep point", "n", "mean", "std", "95% CI"}, {}};
  for (const auto& [label, values] : points) {
    const MeanInterval m = mean_interval(values);
    intervals.cells.push_back({label, std::to_string(m.n), number_or_dash(m.mean), m.n > 1 ? format_number(m.std) : "-",
                               m.n > 1 ? "[" + format_number(m.low) + ", " + format_number(m.high) + "]" : "-"});
  }
  Table tests{"Welch's t-test between sweep points (two-sided; difference = a - b)", {"a", "b", "n a, b", "difference", "t", "df", "p"}, {}};
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t j = i + 1; j < points.size(); ++j) {
      const WelchTest w = welch_test(points[i].second, points[j].second);
      tests.cells.push_back({points[i].first, points[j].first,
                             std::to_string(points[i].second.size()) + ", " + std::to_string(points[j].second.size()),
                             number_or_dash(w.difference), number_or_dash(w.t), number_or_dash(w.df), number_or_dash(w.p)});
    }
  std::vector<Table> out = {intervals};
  if (!tests.cells.empty()) out.push_back(tests);
  return out;
}

std::optional<std::size_t> best_epoch(const std::vector<double>& column, const std::string& metric) {
  std::optional<std::size_t> best;
  const bool lower = !larger_is_better(metric);
  for (std::size_t e = 0; e < column.size(); ++e)
    if (!std::isnan(column[e]) && (!best || (lower ? column[e] < column[*best] : column[e] > column[*best]))) best = e;
  return best;
}

}  // namespace attn
