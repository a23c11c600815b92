#include "attnlab/models/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace attn {
namespace {

std::map<Tokens, int> ngrams(const Tokens& t, std::size_t n) {
  std::map<Tokens, int> counts;
  for (std::size_t i = 0; i + n <= t.size(); ++i) counts[Tokens(t.begin() + static_cast<std::ptrdiff_t>(i), t.begin() + static_cast<std::ptrdiff_t>(i + n))]++;
  return counts;
}

// Matches of prediction n-grams in the label, each label n-gram used at most as often as it occurs.
std::size_t clipped_matches(const Tokens& prediction, const Tokens& label, std::size_t n) {
  std::map<Tokens, int> available = ngrams(label, n);
  std::size_t matches = 0;
  for (const auto& [gram, count] : ngrams(prediction, n)) matches += static_cast<std::size_t>(std::min(count, available[gram]));
  return matches;
}

}  // namespace

double bleu(const Tokens& prediction, const Tokens& label, std::size_t k) {
  if (prediction.empty()) return 0.0;
  const double len_pred = static_cast<double>(prediction.size()), len_label = static_cast<double>(label.size());
  double score = std::exp(std::min(0.0, 1.0 - len_label / len_pred));
  for (std::size_t n = 1; n <= std::min(k, prediction.size()); ++n) {
    const double p = static_cast<double>(clipped_matches(prediction, label, n)) /
                     static_cast<double>(prediction.size() - n + 1);
    score *= std::pow(p, std::pow(0.5, static_cast<double>(n)));
  }
  return score;
}

double corpus_bleu(const std::vector<Tokens>& predictions, const std::vector<Tokens>& labels, std::size_t max_n) {
  double c = 0, r = 0, log_sum = 0;
  for (std::size_t i = 0; i < predictions.size(); ++i) c += static_cast<double>(predictions[i].size()), r += static_cast<double>(labels[i].size());
  for (std::size_t n = 1; n <= max_n; ++n) {
    double matches = 0, total = 0;
    for (std::size_t i = 0; i < predictions.size(); ++i) {
      matches += static_cast<double>(clipped_matches(predictions[i], labels[i], n));
      total += static_cast<double>(predictions[i].size() >= n ? predictions[i].size() - n + 1 : 0);
    }
    if (matches == 0 || total == 0) return 0.0;
    log_sum += std::log(matches / total) / static_cast<double>(max_n);
  }
  const double brevity = c < r ? std::exp(1.0 - r / std::max(c, 1.0)) : 1.0;
  return brevity * std::exp(log_sum);
}

std::size_t evaluation_batch(std::size_t n) {
  return std::clamp<std::size_t>((std::size_t(1) << 22) / std::max<std::size_t>(n * n, 1), 1, 256);
}

}  // namespace attn
