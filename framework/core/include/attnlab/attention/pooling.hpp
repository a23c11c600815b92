// Attention pooling: the weighted sum of the values under the weights a normalizer gave
// (plugins/normalizer.hpp; masked_softmax for the classic layer):
//   output = dropout(weights) V                        [B, n_q, d_v]
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/forward_context.hpp"

namespace attn {

struct AttentionResult {
  Var output;             // [B, n_q, d_v]
  Var weights;            // [B, n_q, n_k]; multi-head: [B*heads, n_q, n_k], row b*heads + j is head j
                          // of sequence b; masked keys 0. A constant (no gradient flows through
                          // it) when attention ran fused (softmax_attention, attention.hpp);
                          // undefined when it ran fused in an evaluation that keeps no weights
                          // (ForwardContext::evaluation_without_weights)
  std::size_t heads = 0;  // the number of heads of multi-head attention, 0 without heads

  // The weights as they are recorded and shown: [B, n_q, n_k], or [B, heads, n_q, n_k] for
  // multi-head attention. The per-head view is a reshape made only when asked for: it copies
  // the weights (134 MB per block at W3's length 512), which training does not need.
  Var weights_by_head() const;
};

// Dropout on the weights (as d2l), while training.
AttentionResult attention_pooling(const Var& weights, const Var& values, float dropout = 0.0f,
                                  const ForwardContext& context = ForwardContext::evaluation());

}  // namespace attn
