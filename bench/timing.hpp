// Timing helpers shared by the benchmark workloads: median wall time of repeated calls.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>
#include <vector>

namespace attn::bench {

// The median of a sample (the upper one of the middle two for an even count).
inline double median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// Median microseconds per call of f over `iters` calls after `warmup` calls.
inline double median_us(const std::function<void()>& f, int warmup, int iters) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t(static_cast<std::size_t>(iters));
  for (auto& v : t) {
    const auto start = std::chrono::steady_clock::now();
    f();
    v = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
  return median(std::move(t));
}

// Median microseconds per call of f and of g, calls alternating (f, g, f, g, ...) so that
// both see the same machine state: the fair way to take a ratio on a noisy machine.
inline std::pair<double, double> paired_median_us(const std::function<void()>& f,
                                                  const std::function<void()>& g, int warmup,
                                                  int iters) {
  for (int i = 0; i < warmup; ++i) f(), g();
  std::vector<double> tf(static_cast<std::size_t>(iters)), tg(tf.size());
  for (std::size_t i = 0; i < tf.size(); ++i) {
    tf[i] = median_us(f, 0, 1);
    tg[i] = median_us(g, 0, 1);
  }
  return {median(std::move(tf)), median(std::move(tg))};
}

}  // namespace attn::bench
