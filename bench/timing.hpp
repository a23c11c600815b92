// Timing helpers shared by the benchmark workloads: median wall time of repeated calls.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace attn::bench {

// Median microseconds per call of f over `iters` calls after `warmup` calls.
inline double median_us(const std::function<void()>& f, int warmup, int iters) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t(static_cast<std::size_t>(iters));
  for (auto& v : t) {
    const auto start = std::chrono::steady_clock::now();
    f();
    v = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
  std::nth_element(t.begin(), t.begin() + iters / 2, t.end());
  return t[static_cast<std::size_t>(iters / 2)];
}

}  // namespace attn::bench
