// Translation metrics.
//   bleu (d2l 10.7): exp(min(0, 1 - len_label / len_pred)) * prod_{n=1..k} p_n^(1/2^n),
//       p_n = clipped matching n-grams / n-grams of the prediction, on one sentence pair.
//   corpus_bleu (Papineni et al., BLEU-4): clipped n-gram counts summed over the corpus,
//       exp(mean_n log p_n) for n = 1..4, brevity penalty exp(1 - r/c) when c < r.
#pragma once

#include <string>
#include <vector>

namespace attn {

using Tokens = std::vector<std::string>;

double bleu(const Tokens& prediction, const Tokens& label, std::size_t k = 2);
double corpus_bleu(const std::vector<Tokens>& predictions, const std::vector<Tokens>& labels,
                   std::size_t max_n = 4);

// Inputs per evaluation batch for sequences of n positions: 256, fewer for long ones, so that a
// batch's attention scores (inputs x n x n per head) stay near 2^22 entries per head (16 MB):
// 256 at n = 128, 16 at 512.
std::size_t evaluation_batch(std::size_t n);

}  // namespace attn
