#include "attnlab/models/text_generator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

int sample_token(const float* logits, std::size_t vocab, const SamplingOptions& options, Rng& rng) {
  std::vector<std::size_t> order(vocab);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t k = options.top_k == 0 ? vocab : std::min(options.top_k, vocab);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](std::size_t a, std::size_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
  const double top = logits[order[0]];
  std::vector<double> weight(k);
  double total = 0.0;
  for (std::size_t i = 0; i < k; ++i) total += weight[i] = std::exp((logits[order[i]] - top) / options.temperature);
  double draw = static_cast<double>(rng.uniform()) * total;
  for (std::size_t i = 0; i < k; ++i) {
    if (draw < weight[i]) return static_cast<int>(order[i]);
    draw -= weight[i];
  }
  return static_cast<int>(order[k - 1]);  // (rounding left the draw past the last weight)
}

}  // namespace attn
