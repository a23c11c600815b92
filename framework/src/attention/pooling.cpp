#include "attnlab/attention/pooling.hpp"

#include <stdexcept>

#include "attnlab/rng.hpp"

namespace attn {

AttentionResult attention_pooling(const Var& scores, const Var& values, const ValidLens& lens,
                                  float dropout_p, Rng* rng, bool training) {
  if (scores.ndim() != 3 || values.ndim() != 3 || scores.dim(0) != values.dim(0) ||
      scores.dim(2) != values.dim(1))
    throw std::invalid_argument("attention pooling: scores [B, n_q, n_k] and values [B, n_k, d_v] expected, got " +
                                shape_str(scores.shape()) + " and " + shape_str(values.shape()));
  const Var weights = masked_softmax(scores, lens);  // [B, n_q, n_k]
  Var used = weights;
  if (training && dropout_p > 0.0f) {
    if (!rng) throw std::invalid_argument("attention pooling: dropout needs the run's Rng");
    used = dropout(weights, dropout_p, *rng, true);
  }
  return {bmm(used, values), weights};  // [B, n_q, d_v]
}

}  // namespace attn
