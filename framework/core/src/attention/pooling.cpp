#include "attnlab/attention/pooling.hpp"

#include <stdexcept>

namespace attn {

AttentionResult attention_pooling(const Var& scores, const Var& values, const ValidLens& lens, float dropout,
                                  const ForwardContext& context) {
  if (scores.ndim() != 3 || values.ndim() != 3 || scores.dim(0) != values.dim(0) ||
      scores.dim(2) != values.dim(1))
    throw std::invalid_argument("attention pooling: scores [B, n_q, n_k] and values [B, n_k, d_v] expected, got " +
                                shape_str(scores.shape()) + " and " + shape_str(values.shape()));
  const Var weights = masked_softmax(scores, lens);                  // [B, n_q, n_k]
  return {bmm(context.dropout(weights, dropout), values), weights};  // [B, n_q, d_v]
}

}  // namespace attn
