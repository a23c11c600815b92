// Attention pooling: the weighted sum of the values under the weights a normalizer gave
// (plugins/normalizer.hpp; masked_softmax for the classic layer):
//   output = dropout(weights) V                        [B, n_q, d_v]
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/forward_context.hpp"

namespace attn {

struct AttentionResult {
  Var output;   // [B, n_q, d_v]
  Var weights;  // [B, n_q, n_k] (multi-head: [B, heads, n_q, n_k]); masked keys 0
};

// Dropout on the weights (as d2l), while training.
AttentionResult attention_pooling(const Var& weights, const Var& values, float dropout = 0.0f,
                                  const ForwardContext& context = ForwardContext::evaluation());

}  // namespace attn
