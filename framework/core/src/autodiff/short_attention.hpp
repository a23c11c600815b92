// The fused attention's path for short rows (private to framework/src/autodiff): when a
// sequence has at most `lanes` keys and its query, key and value rows are at most `lanes` long
// (W5's Transformer: 10 keys, 8 floats per head), each row of scores, weights, output and their
// gradients is one vector, and softmax_attention (ops_fused_attention.cpp) computes them with
// vector multiply-adds in registers instead of six BLAS calls per sequence on 10 x 10 matrices,
// whose call overhead, and the stall of reading scores just stored, cost more than the arithmetic.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>

#include "dropout_mask.hpp"
#include "softmax_rows.hpp"

namespace attn {

// The inputs of softmax_attention: q [B, n_q, p], k [B, n_k, p], v [B, n_k, p_v] and the valid
// keys of each of the B n_q rows.
struct AttentionInputs {
  const float *q, *k, *v;
  std::size_t batch, nq, nk, p, pv;
  const KeyRange* valid;
};

// Sequences per chunk when the work is split over cores (attnlab/parallel.hpp): chunks of about
// 64k multiply-adds or more, by the shapes alone. Sequences write disjoint rows of every output
// and gradient, even when q, k and v are one tensor.
inline std::size_t sequences_per_chunk(const AttentionInputs& in) {
  const std::size_t per_sequence = in.nq * in.nk * (in.p + in.pv);
  return per_sequence == 0 ? in.batch + 1 : std::max<std::size_t>(1, (std::size_t{1} << 16) / per_sequence);
}

// A gradient to write (beta 0) or add to (beta 1); nothing when data is null.
struct GradientTarget {
  float* data = nullptr;
  float beta = 0.0f;
};

// Whether every row fits in one vector.
inline bool fits_short_rows(std::size_t nk, std::size_t p, std::size_t pv) { return nk <= lanes && p <= lanes && pv <= lanes; }

// w [B, n_q, n_k] = masked_softmax(scale q k^T),  out [B, n_q, p_v] = dropout(w) v  (the mask, if
// any, is `mask`'s over w's elements); w not written when null.
void short_attention_forward(const AttentionInputs& in, float scale, const std::optional<DropoutMask>& mask, float* w,
                             float* out);

// The backward of short_attention_forward for dout [B, n_q, p_v], into dq [B, n_q, p],
// dk [B, n_k, p] and dv [B, n_k, p_v] (softmax_attention states the math).
void short_attention_backward(const AttentionInputs& in, float scale, const std::optional<DropoutMask>& mask,
                              const float* w, const float* dout, GradientTarget dq, GradientTarget dk, GradientTarget dv);

}  // namespace attn
