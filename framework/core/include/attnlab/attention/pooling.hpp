// Attention pooling: the weighted sum of values, weights = masked softmax of the scores.
//   weights = masked_softmax(scores, valid_lens)       [B, n_q, n_k]
//   output  = dropout(weights) V                       [B, n_q, d_v]
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/forward_context.hpp"

namespace attn {

struct AttentionResult {
  Var output;   // [B, n_q, d_v]
  Var weights;  // [B, n_q, n_k] (multi-head: [B, heads, n_q, n_k]); rows sum to 1, masked keys 0
};

// Dropout on the weights (as d2l), while training.
AttentionResult attention_pooling(const Var& scores, const Var& values, const ValidLens& lens, float dropout = 0.0f,
                                  const ForwardContext& context = ForwardContext::evaluation());

}  // namespace attn
