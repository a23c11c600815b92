// Attention pooling: the weighted sum of values, weights = masked softmax of the scores.
//   weights = masked_softmax(scores, valid_lens)       [B, n_q, n_k]
//   output  = dropout(weights) V                       [B, n_q, d_v]
#pragma once

#include "attnlab/autodiff/ops.hpp"

namespace attn {

struct AttentionResult {
  Var output;   // [B, n_q, d_v]
  Var weights;  // [B, n_q, n_k] (multi-head: [B, heads, n_q, n_k]); rows sum to 1, masked keys 0
};

// Dropout on the weights (as d2l) only while training; `rng` may be null when dropout is 0.
AttentionResult attention_pooling(const Var& scores, const Var& values, const ValidLens& lens,
                                  float dropout = 0.0f, Rng* rng = nullptr, bool training = false);

}  // namespace attn
