#include "lab/analysis/graph_layout.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

std::vector<std::pair<double, double>> graph_layout(const std::vector<std::vector<bool>>& adjacency) {
  const std::size_t n = adjacency.size();
  const double pi = std::acos(-1.0), k = std::sqrt(1.0 / std::max<double>(1.0, static_cast<double>(n)));
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = 0.5 + 0.4 * std::cos(2 * pi * static_cast<double>(i) / static_cast<double>(n)),
    y[i] = 0.5 + 0.4 * std::sin(2 * pi * static_cast<double>(i) / static_cast<double>(n));
  constexpr int steps = 300;
  for (int step = 0; step < steps; ++step) {
    std::vector<double> dx(n, 0.0), dy(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j) continue;
        const double ex = x[i] - x[j], ey = y[i] - y[j], d = std::max(1e-6, std::hypot(ex, ey));
        const double force = k * k / d - (adjacency[i][j] || adjacency[j][i] ? d * d / k : 0.0);
        dx[i] += ex / d * force, dy[i] += ey / d * force;
      }
    const double limit = 0.1 * (1.0 - static_cast<double>(step) / steps);
    for (std::size_t i = 0; i < n; ++i) {
      const double len = std::max(1e-9, std::hypot(dx[i], dy[i])), move = std::min(len, limit);
      x[i] += dx[i] / len * move, y[i] += dy[i] / len * move;
    }
  }
  const auto [x0, x1] = std::minmax_element(x.begin(), x.end());
  const auto [y0, y1] = std::minmax_element(y.begin(), y.end());
  const double sx = std::max(1e-9, *x1 - *x0), sy = std::max(1e-9, *y1 - *y0), lx = *x0, ly = *y0;
  std::vector<std::pair<double, double>> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = {(x[i] - lx) / sx, (y[i] - ly) / sy};
  return out;
}

}  // namespace attn
