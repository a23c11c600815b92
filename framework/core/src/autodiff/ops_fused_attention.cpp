// Fused dot-product attention (softmax_attention, ops.hpp): scores, masked softmax, dropout and
// pooling without storing the scores. Two paths compute the same math: blocks of queries whose
// products go through tile_gemm or OpenBLAS (here), and one vector per row for short rows
// (short_attention.cpp).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/parallel.hpp"
#include "dropout_mask.hpp"
#include "fast_math.hpp"
#include "short_attention.hpp"
#include "softmax_rows.hpp"
#include "tile_gemm.hpp"

namespace attn {
namespace {

// Queries per block: a block's scores (rows x n_k floats) fit in 64 KB, so they are still in
// cache when the softmax and the pooling read them. Measured on W3 L512 (docs/performance.md):
// blocks of 64 KB 583-585 ms, 128 KB 591-597 ms, 32 KB 593-599 ms.
std::size_t query_block(std::size_t nq, std::size_t nk) {
  return std::clamp<std::size_t>(16384 / std::max<std::size_t>(nk, 1), 1, std::max<std::size_t>(nq, 1));
}

// C [m, n] = alpha A B + beta C for row-major A [m, k], B [k, n]: tile_gemm when C is wide
// enough for its tiles (attention's per-head shapes), OpenBLAS otherwise.
void product(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, const float* b, float beta, float* c) {
  if (tile_gemm_fits(n))
    tile_gemm(m, n, k, alpha, a, k, b, n, beta, c, n);
  else
    gemm(false, false, m, n, k, alpha, a, b, beta, c);
}

// The mask: none at rate 0 (then nothing is drawn or applied).
std::optional<DropoutMask> dropout_mask(const DropoutDraw& dropout, const Shape& weights) {
  require_dropout_rate(dropout.p, "softmax_attention");
  if (dropout.p == 0.0f) return std::nullopt;
  require_mask_fits(weights, "softmax_attention");
  return DropoutMask(dropout.seed, dropout.p);
}

// D_i: the n weights from element `first` on with the mask applied, in `scratch`; the weights
// themselves without a mask.
const float* dropped_weights(const std::optional<DropoutMask>& mask, const float* weights, std::size_t n,
                             std::size_t first, std::vector<float>& scratch) {
  if (!mask) return weights;
  scratch.resize(n);
  mask->apply(weights, scratch.data(), n, first);
  return scratch.data();
}

// One sequence b of the inputs.
struct Sequence {
  const float *q, *k, *v;
  const KeyRange* valid;
  std::size_t first;  // its first row of [B n_q]
};
Sequence sequence(const AttentionInputs& in, std::size_t b) {
  return {in.q + b * in.nq * in.p, in.k + b * in.nk * in.p, in.v + b * in.nk * in.pv, in.valid + b * in.nq, b * in.nq};
}

// The block path's forward (the math above softmax_attention), sequence by sequence; the weights
// to w unless it is null.
void blocked_forward(const AttentionInputs& in, float scale, const std::optional<DropoutMask>& mask, float* w, float* out) {
  const std::size_t block = query_block(in.nq, in.nk);
  parallel_for(in.batch, sequences_per_chunk(in), [&](std::size_t b0, std::size_t b1) {
    std::vector<float> kt(in.p * in.nk), wi(block * in.nk), dropped;  // K_b^T; a block's W_i; its D_i
    for (std::size_t b = b0; b < b1; ++b) {
      const Sequence s = sequence(in, b);
      transpose(s.k, in.nk, in.p, kt.data(), in.nk);  // Q Kᵀ reads rows of Kᵀ
      for (std::size_t i = 0; i < in.nq; i += block) {
        const std::size_t rows = std::min(block, in.nq - i), row0 = s.first + i;
        product(rows, in.nk, in.p, scale, s.q + i * in.p, kt.data(), 0.0f, wi.data());
        for (std::size_t r = 0; r < rows; ++r) softmax_row(wi.data() + r * in.nk, wi.data() + r * in.nk, in.nk, s.valid[i + r]);
        product(rows, in.pv, in.nk, 1.0f, dropped_weights(mask, wi.data(), rows * in.nk, row0 * in.nk, dropped), s.v, 0.0f,
                out + row0 * in.pv);
        if (w) stream_row(wi.data(), w + row0 * in.nk, rows * in.nk);
      }
    }
  });
}

// What the block path's backward decides once for all sequences: the block size, whether the
// scores' gradient is wanted (for dq or dk); and its buffers: a block's dD, then dW, then dS;
// V_b^T; a block's D_i.
struct BackwardPlan {
  std::size_t block;
  bool scores_wanted;
  std::vector<float> ds, vt, dropped;
};

// The block path's backward of one sequence (the math above softmax_attention).
void blocked_backward_sequence(const AttentionInputs& in, const Sequence& s, float scale, const std::optional<DropoutMask>& mask,
                               const float* w, const float* dout, GradientTarget dq, GradientTarget dk, GradientTarget dv,
                               BackwardPlan& plan) {
  const std::size_t block = plan.block;
  const bool scores_wanted = plan.scores_wanted;
  std::vector<float> &ds = plan.ds, &vt = plan.vt;
  if (scores_wanted) transpose(s.v, in.nk, in.pv, vt.data(), in.nk);  // dO Vᵀ reads rows of Vᵀ
  for (std::size_t i = 0; i < in.nq; i += block) {
    const std::size_t rows = std::min(block, in.nq - i), row0 = s.first + i;
    const float *wi = w + row0 * in.nk, *dout_i = dout + row0 * in.pv;
    if (dv.data)
      gemm(true, false, in.nk, in.pv, rows, 1.0f, dropped_weights(mask, wi, rows * in.nk, row0 * in.nk, plan.dropped), dout_i,
           i ? 1.0f : dv.beta, dv.data);
    if (!scores_wanted) continue;
    product(rows, in.nk, in.pv, 1.0f, dout_i, vt.data(), 0.0f, ds.data());
    if (mask) mask->apply(ds.data(), ds.data(), rows * in.nk, row0 * in.nk);
    for (std::size_t r = 0; r < rows; ++r)
      softmax_row_backward(wi + r * in.nk, ds.data() + r * in.nk, ds.data() + r * in.nk, in.nk, 0.0f);
    if (dq.data) product(rows, in.p, in.nk, scale, ds.data(), s.k, dq.beta, dq.data + row0 * in.p);
    if (dk.data) gemm(true, false, in.nk, in.p, rows, scale, ds.data(), s.q + i * in.p, i ? 1.0f : dk.beta, dk.data);
  }
}

// The block path's backward, sequence by sequence; dk and dv point at sequence b's rows.
void blocked_backward(const AttentionInputs& in, float scale, const std::optional<DropoutMask>& mask, const float* w,
                      const float* dout, GradientTarget dq, GradientTarget dk, GradientTarget dv) {
  const auto at = [](GradientTarget g, std::size_t offset) { return g.data ? GradientTarget{g.data + offset, g.beta} : g; };
  const bool scores_wanted = dq.data || dk.data;
  const std::size_t block = query_block(in.nq, in.nk);
  parallel_for(in.batch, sequences_per_chunk(in), [&](std::size_t b0, std::size_t b1) {
    BackwardPlan plan{block, scores_wanted, std::vector<float>(scores_wanted ? block * in.nk : 0),
                      std::vector<float>(scores_wanted ? in.pv * in.nk : 0), {}};
    for (std::size_t b = b0; b < b1; ++b)
      blocked_backward_sequence(in, sequence(in, b), scale, mask, w, dout, dq, at(dk, b * in.nk * in.p),
                                at(dv, b * in.nk * in.pv), plan);
  });
}

// The gradient target of parent i: none when it wants no gradient; a zero-filled buffer to add
// to when `into_zeros`, else Node::grad_target's.
GradientTarget gradient_target(Node& n, std::size_t i, bool into_zeros) {
  if (!n.wants(i)) return {};
  if (into_zeros) return {n.parents[i]->grad_buffer().data(), 1.0f};
  const auto [data, beta] = n.parents[i]->grad_target();
  return {data, beta};
}

}  // namespace

// Per sequence b and block of query rows Q_i (shapes [rows, p]; K, V [n_k, p], [n_k, p_v]),
// with D_i = W_i * M_i / (1 - p) under dropout (mask M, DropoutMask's for the seed) and D_i = W_i
// without:
//   forward   W_i = masked_softmax(scale Q_i K^T) (computed in place in W's rows),  O_i = D_i V
//   backward  dD_i = dO_i V^T,  dW_i = dD_i * M_i / (1 - p),
//             dS_i = W_i * (dW_i - rowsum(dW_i * W_i))  (in place),
//             dQ_i = scale dS_i K,  dK += scale dS_i^T Q_i,  dV += D_i^T dO_i
// Each block's scores and their gradients are read while still in cache: the forward computes a
// block's weights in a buffer of its own, then streams them to W past the cache (stream_row),
// since the backward reads W long after (on W3 L512, 576 ms against 582 ms computing them in
// W's rows, whose lines each had to be read from memory first). The unfused path
// writes and reads the [B, n_q, n_k] scores, weights and their gradients to memory five times
// (seven with dropout). The products with a row-major right operand go through tile_gemm.
// Sequences are split over the cores in chunks (sequences_per_chunk); each writes only its rows.
// Sequences whose rows fit in one vector take the short path (short_attention.hpp).
FusedAttention softmax_attention(const Var& q, const Var& k, const Var& v, float scale, const ValidLens& lens,
                                 DropoutDraw dropout, bool keep_weights) {
  if (q.ndim() != 3 || k.ndim() != 3 || v.ndim() != 3 || q.dim(0) != k.dim(0) || v.dim(0) != k.dim(0) ||
      q.dim(2) != k.dim(2) || v.dim(1) != k.dim(1))
    throw std::invalid_argument("softmax_attention: expected q [B, n_q, p], k [B, n_k, p], v [B, n_k, p_v], got " +
                                shape_str(q.shape()) + ", " + shape_str(k.shape()) + ", " + shape_str(v.shape()));
  const std::size_t batch = q.dim(0), nq = q.dim(1), nk = k.dim(1), p = q.dim(2), pv = v.dim(2);
  const auto valid = std::make_shared<const std::vector<KeyRange>>(row_ranges({batch, nq, nk}, lens_of(lens), "softmax_attention"));
  const std::optional<DropoutMask> mask = dropout_mask(dropout, {batch, nq, nk});
  const bool short_rows = fits_short_rows(nk, p, pv);
  // The inputs as arrays: q's, k's and v's values (or any arrays of their shapes).
  const auto inputs = [=](const float* qd, const float* kd, const float* vd) {
    return AttentionInputs{qd, kd, vd, batch, nq, nk, p, pv, valid->data()};
  };
  const bool differentiable = graph_recording() && (q.requires_grad() || k.requires_grad() || v.requires_grad());
  const bool stored = keep_weights || differentiable;  // else the output alone
  Tensor out = Tensor::from_shape({batch, nq, pv}), w = stored ? Tensor::from_shape({batch, nq, nk}) : Tensor();
  (short_rows ? short_attention_forward : blocked_forward)(inputs(q.value().data(), k.value().data(), v.value().data()),
                                                           scale, mask, stored ? w.data() : nullptr, out.data());
  if (!stored) return {constant(std::move(out)), Var()};
  const Var weights = constant(std::move(w));
  Var output = graph_node(std::move(out), {q, k, v}, [weights, mask, scale, inputs, short_rows, nq](Node& n) {
    // Each gradient is written block by block, so when two of q, k and v are one node (self-
    // attention on x itself) a block of one would land on rows another has not written yet, and
    // without queries no block writes dK and dV at all: then they add into zero-filled buffers.
    const bool into_zeros = n.parents[0] == n.parents[1] || n.parents[1] == n.parents[2] || n.parents[0] == n.parents[2] || nq == 0;
    (short_rows ? short_attention_backward : blocked_backward)(
        inputs(n.parents[0]->value.data(), n.parents[1]->value.data(), n.parents[2]->value.data()), scale, mask,
        weights.value().data(), n.grad.data(), gradient_target(n, 0, into_zeros), gradient_target(n, 1, into_zeros),
        gradient_target(n, 2, into_zeros));
  }, reads_parents({0, 1, 2}));
  return {std::move(output), weights};
}

}  // namespace attn
