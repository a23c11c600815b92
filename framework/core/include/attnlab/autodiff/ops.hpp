// The differentiable primitives. Each has a hand-written backward next to its forward in
// framework/src/autodiff/ops_*.cpp, with its math on one line. Everything else in attnlab
// (scoring functions, cells, attention, models) is a composition of these.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/autodiff/var.hpp"

namespace attn {

class Rng;

// ---- elementwise, with numpy broadcasting (ops_elementwise.cpp) ----
Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);
Var scale(const Var& x, float s);      // s * x
Var add_scalar(const Var& x, float s); // x + s
Var tanh(const Var& x);
Var sigmoid(const Var& x);
Var relu(const Var& x);
Var gelu(const Var& x);  // x Phi(x), the exact GELU (erf), as PyTorch's nn.GELU()
Var leaky_relu(const Var& x, float slope);  // x > 0 ? x : slope x (GAT's scores, slope 0.2)
Var elu(const Var& x);  // x > 0 ? x : e^x - 1 (GAT between layers)
Var exp(const Var& x);
Var log(const Var& x);
Var sqrt(const Var& x);
Var square(const Var& x);
Var abs(const Var& x);

inline Var operator+(const Var& a, const Var& b) { return add(a, b); }
inline Var operator-(const Var& a, const Var& b) { return sub(a, b); }
inline Var operator*(const Var& a, const Var& b) { return mul(a, b); }
inline Var operator/(const Var& a, const Var& b) { return div(a, b); }
inline Var operator-(const Var& x) { return scale(x, -1.0f); }
inline Var operator*(const Var& x, float s) { return scale(x, s); }
inline Var operator*(float s, const Var& x) { return scale(x, s); }
inline Var operator/(const Var& x, float s) { return scale(x, 1.0f / s); }
inline Var operator+(const Var& x, float s) { return add_scalar(x, s); }
inline Var operator+(float s, const Var& x) { return add_scalar(x, s); }
inline Var operator-(const Var& x, float s) { return add_scalar(x, -s); }
inline Var operator-(float s, const Var& x) { return add_scalar(scale(x, -1.0f), s); }

// ---- products (ops_linalg.cpp) ----
// a [..., k] x b [k, n] -> [..., n]
Var matmul(const Var& a, const Var& b);
// x w + b in one node (a Linear layer): x [..., k], w [k, n], b [n] -> [..., n]; the bias is
// written first and the product added onto it, and db is the column sums of dy.
Var linear(const Var& x, const Var& w, const Var& b);
// relu(x w + b) in one node (a feed-forward layer's first half), the same floats as
// relu(linear(x, w, b)) without a second tensor of y's size each way.
Var linear_relu(const Var& x, const Var& w, const Var& b);
// op(a) [B, m, k] x op(b) [B, k, n] -> [B, m, n]; trans_* transposes the last two axes of an
// operand without copying it (BLAS does it).
Var bmm(const Var& a, const Var& b, bool trans_a = false, bool trans_b = false);
// alpha op(a) op(b): the scaling in the same pass (scaled dot-product scores).
Var bmm(const Var& a, const Var& b, bool trans_a, bool trans_b, float alpha);

// ---- shape (ops_shape.cpp) ----
Var reshape(const Var& x, const Shape& shape);  // same number of elements
Var permute(const Var& x, const std::vector<std::size_t>& axes);
Var transpose(const Var& x, std::size_t axis0, std::size_t axis1);
// Multi-head attention's reshuffles (d2l's transpose_qkv / transpose_output), one copy each:
//   split_heads: x [B, n, h*p] -> [B*h, n, p],  y[b*h + j, i, :] = x[b, i, j*p : (j+1)*p]
//   merge_heads: its inverse, [B*h, n, p] -> [B, n, h*p]
// With `first` and `width`, split_heads reads only the columns [first, first + width) of x
// [B, n, C] (width = h*p): one of several projections computed as one product.
Var split_heads(const Var& x, std::size_t heads, std::size_t first = 0, std::size_t width = 0);
Var merge_heads(const Var& x, std::size_t heads);
Var slice(const Var& x, std::size_t axis, std::size_t begin, std::size_t end);  // [begin, end)
Var concat(const std::vector<Var>& xs, std::size_t axis);
// Rows of x along `axis` picked by `index` (any shape): result shape is
// x.shape[:axis] + index.shape + x.shape[axis+1:].
Var index_select(const Var& x, std::size_t axis, const IntTensor& index);

// ---- reductions (ops_reduce.cpp) ----
Var sum(const Var& x);  // over everything -> scalar (shape [])
Var sum(const Var& x, const std::vector<std::size_t>& axes, bool keepdims = false);
Var mean(const Var& x);
Var mean(const Var& x, const std::vector<std::size_t>& axes, bool keepdims = false);

// ---- softmax family (ops_softmax.cpp) ----
// Valid lengths for masked softmax over the last axis of x [d0, d1, ..., n]: `lens` has the
// shape of a prefix of x.shape[:-1] (1-D [B] per batch item, or 2-D [B, n_q] per query);
// every row under lens[i...] keeps its first lens[i...] entries; the rest get exactly 0, and a
// row with length 0 is all zeros (never NaN). Or key ranges [B, n_q, 2] for x [B, n_q, n_k]:
// row (b, i) keeps keys lens[b, i, 0] <= j < lens[b, i, 1] (a window: vvv's option window).
using ValidLens = std::optional<IntTensor>;  // no value: nothing is masked
Var softmax(const Var& x);  // over the last axis
Var masked_softmax(const Var& x, const IntTensor& lens);
Var masked_softmax(const Var& x, const ValidLens& lens);  // softmax when lens is empty
Var log_softmax(const Var& x);  // over the last axis
// Sparsemax (Martins & Astudillo 2016) over the last axis under the same lengths: the
// Euclidean projection of the valid entries onto the simplex, y = max(0, x - tau), tau such
// that the row sums to 1; entries can be exactly 0. dx = dy - mean_{y>0}(dy) on the support,
// 0 off it. Masked entries and rows of length 0 give 0.
Var sparsemax(const Var& x, const ValidLens& lens);
// x with the entries outside each row's valid keys set to exactly 0, even where x is inf or NaN
// (dx: dy on the valid keys, 0 elsewhere).
Var mask_keys(const Var& x, const ValidLens& lens);

// ---- losses (ops_loss.cpp) ----
// d2l's MaskedSoftmaxCELoss: logits [B, T, V], labels [B, T], valid_lens [B] ->
// per-sequence loss [B] = (1/T) sum_{t < valid_lens[b]} -log softmax(logits[b,t])[labels[b,t]].
// With label smoothing eps the target is (1 - eps) onehot + eps / V, as PyTorch's
// cross_entropy(label_smoothing=eps): -sum_v q_v log softmax(logits[b,t])_v.
Var masked_cross_entropy(const Var& logits, const IntTensor& labels, const IntTensor& valid_lens, float smoothing = 0.0f);

// ---- layers' primitives (ops_nn.cpp) ----
// Embedding lookup: table [V, d], ids [...] -> [..., d]
Var embedding(const Var& table, const IntTensor& ids);
// Inverted dropout: keep with probability 1-p and scale by 1/(1-p). Layers call it through
// ForwardContext::dropout (nn/forward_context.hpp), which applies it only while training.
Var dropout(const Var& x, float p, Rng& rng);
// The rates dropout accepts, here and in softmax_attention: 0 <= p < 1. Throws
// std::invalid_argument naming `op` otherwise (a NaN included).
void require_dropout_rate(float p, const std::string& op);
// Layer norm over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta.
Var layer_norm(const Var& x, const Var& gamma, const Var& beta, float eps = 1e-5f);
// layer_norm(x + y) in one node (the Transformer's add & norm): the sum is made one row at a time
// and not stored; x and y have one shape. The same floats as layer_norm(x + y).
Var add_layer_norm(const Var& x, const Var& y, const Var& gamma, const Var& beta, float eps = 1e-5f);

// ---- recurrent (ops_rnn.cpp) ----
// One fused GRU step (PyTorch's gate order r, z, n) from xp = x W_ih + b_ih and
// hp = h W_hh + b_hh [B, 3h] and the state h [B, h] -> h' [B, h]; the equations are in the
// `gru` cell (plugins/gru.cpp).
Var gru_step(const Var& xp, const Var& hp, const Var& h);
// One fused LSTM step (gate order i, f, g, o) from xp, hp [B, 4h] and the cell state c [B, h]
// -> {h', c'}; the equations are in the `lstm` cell (plugins/lstm.cpp).
struct LstmState {
  Var h, c;  // [B, h] each
};
LstmState lstm_step(const Var& xp, const Var& hp, const Var& c);
// One fused Elman step: h' = tanh(xp + hp), xp, hp [B, h] (plugins/rnn.cpp).
Var rnn_step(const Var& xp, const Var& hp);
// Rows of [B, ...]: y[b] = keep[b] ? a[b] : c[b], zeros where c is undefined (ended sequences
// keep their state and output zeros).
Var rows_where(const std::vector<bool>& keep, const Var& a, const Var& c);
// API 2's name, kept for API 13 only (docs/plugin-api-changes.md).
[[deprecated("select_rows() is rows_where() since plugin API 3")]] inline Var select_rows(const std::vector<bool>& keep, const Var& a,
                                                                                     const Var& c) {
  return rows_where(keep, a, c);
}

// ---- attention (ops_attention.cpp) ----
// Additive (Bahdanau) scores after projection, fused: q [B, n_q, h], k [B, n_k, h], w [h] ->
// s [B, n_q, n_k], s_bij = sum_h w_h tanh(q_bih + k_bjh), without the [B, n_q, n_k, h] tensor.
Var additive_scores(const Var& q, const Var& k, const Var& w);
// Dot-product attention with a masked softmax, fused: q [B, n_q, p], k [B, n_k, p],
// v [B, n_k, p_v] -> output [B, n_q, p_v] and weights [B, n_q, n_k], where
//   S = scale q k^T,  W = masked_softmax(S, lens),  output = dropout(W) v
// equal to composing bmm, masked_softmax, dropout and bmm, with the scores kept in cache one
// block of queries at a time (never stored). Dropout (rate `dropout.p`, none when 0) draws the
// mask dropout() draws from the same seed. The weights, before dropout, are a constant:
// gradients reach q, k and v through the output only. With keep_weights false and no gradient
// recorded (NoGrad, or none of q, k, v takes one) the weights are not stored at all (weights
// undefined): an evaluation that reads the output alone needs no B n_q n_k floats.
struct DropoutDraw {
  float p = 0.0f;          // rate, in [0, 1)
  std::uint64_t seed = 0;  // the mask's seed (ForwardContext::draw_dropout takes it from the run's rng)
};
struct FusedAttention {
  Var output;   // [B, n_q, p_v]
  Var weights;  // [B, n_q, n_k], not differentiable
};
FusedAttention softmax_attention(const Var& q, const Var& k, const Var& v, float scale, const ValidLens& lens,
                                 DropoutDraw dropout = {}, bool keep_weights = true);
// q [B, n_q, d], k [B, n_k, d] -> [B, n_q, n_k], entry ||q_i - k_j||^2 (fused, exact).
Var squared_distances(const Var& q, const Var& k);
// q [B, n_q, d], k [B, n_k, d] -> [B, n_q, n_k], entry ||q_i - k_j|| (its gradient is taken as 0
// where the distance is 0, the subgradient of the norm at its minimum).
Var distances(const Var& q, const Var& k);
// x / sqrt(sum(x^2) + eps) over the last axis (composed).
Var l2_normalize(const Var& x, float eps = 1e-12f);
// The tanh the fused kernels use (rational approximation, a few ulp from std::tanh).
float fast_tanh_value(float x);

}  // namespace attn
