// Plugin kind 4: attention normalizers — how masked scores become attention weights.
//   weights = normalize(scores [B, n_q, n_k], valid lengths)       [B, n_q, n_k]
// A key at or past its row's valid length gets weight exactly 0, and a row of valid length 0
// is all zeros (never NaN). The built-ins (plugins/softmax.cpp, sigmoid.cpp, sparsemax.cpp,
// kernel.cpp; docs/concepts/normalizing-scores.md):
//   softmax:   w_j = exp(s_j) / sum_i exp(s_i)                          (rows sum to 1)
//   sigmoid:   w_j = sigma(s_j + b), b = -log (valid keys) by default    (rows need not sum to 1)
//   sparsemax: w = argmin_{p in simplex} ||p - s||^2 = max(0, s - tau)   (exact zeros)
//   kernel:    w_j = s_j / sum_i s_i for scores s >= 0 (d2l 1.0's K / sum K)
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/params.hpp"
#include "attnlab/options.hpp"

namespace attn {

struct NormalizerArgs {
  ParamScope params;       // a normalizer may learn parameters (none of the built-ins does)
  const Options& options;  // the plugin's options from the spec (model.attention.normalizer_options.*)
};

// What a normalizer promises; the conformance suite checks each promise it makes.
struct NormalizerTraits {
  bool rows_sum_to_one = true;             // every row of valid length > 0 sums to 1
  bool non_negative_scores_only = false;   // refuses negative scores (kernel)
  // normalize() is exactly masked_softmax(scores, lens): with a dot-product scoring function
  // the framework may fuse the two (ScoringFunction::dot_product_scale). Checked on a probe
  // when the plugin is constructed.
  bool masked_softmax = false;
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // scores [B, n_q, n_k], lens none / [B] / [B, n_q] -> weights [B, n_q, n_k]. The helpers:
  // masked_softmax, sparsemax and mask_keys (autodiff/ops.hpp) all take the same lengths.
  virtual Var normalize(const Var& scores, const ValidLens& lens) = 0;
  virtual NormalizerTraits traits() const { return {}; }
};

}  // namespace attn
