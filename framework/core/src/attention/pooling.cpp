#include "attnlab/attention/pooling.hpp"

#include <stdexcept>

namespace attn {

Var AttentionResult::weights_by_head() const {
  if (heads == 0 || !weights.defined()) return weights;
  return reshape(weights, {weights.dim(0) / heads, heads, weights.dim(1), weights.dim(2)});
}

AttentionResult attention_pooling(const Var& weights, const Var& values, float dropout, const ForwardContext& context) {
  if (weights.ndim() != 3 || values.ndim() != 3 || weights.dim(0) != values.dim(0) || weights.dim(2) != values.dim(1))
    throw std::invalid_argument("attention pooling: weights [B, n_q, n_k] and values [B, n_k, d_v] expected, got " +
                                shape_str(weights.shape()) + " and " + shape_str(values.shape()));
  return {bmm(context.dropout(weights, dropout), values), weights};  // [B, n_q, d_v]
}

}  // namespace attn
