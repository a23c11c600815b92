// The fused attention's short rows: one vector per row (short_attention.hpp says when and why).
// Rows go in groups of up to four, so that the chains of multiply-adds of different rows, each
// step waiting on the one before, interleave.
#include "short_attention.hpp"

#include <type_traits>
#include <vector>

#include "attnlab/parallel.hpp"

namespace attn {
namespace {

using Floats = std::vector<float, xsimd::aligned_allocator<float>>;
template <std::size_t R>
using Rows = std::integral_constant<std::size_t, R>;
constexpr std::size_t group = 4;

// f(Rows<R>{}, i) for the groups [i, i + R) of rows [0, n).
template <class F>
void in_groups(std::size_t n, F&& f) {
  std::size_t i = 0;
  for (; i + group <= n; i += group) f(Rows<group>{}, i);
  if (n - i == 3) f(Rows<3>{}, i);
  if (n - i == 2) f(Rows<2>{}, i);
  if (n - i == 1) f(Rows<1>{}, i);
}

// Row r of x [rows, width] as a vector, the lanes past `width` 0.
Batch row(const float* x, std::size_t r, std::size_t width) { return load_tail(x + r * width, width, 0.0f); }

// Every x_b [rows, cols] of x [batch, rows, cols] by columns, a vector each: vector b cols + c
// holds x_b[r, c] in lane r (0 past `rows`). All are written before any is read: a vector load
// of floats just stored one by one waits for the stores.
Floats columns(const float* x, std::size_t batch, std::size_t rows, std::size_t cols) {
  Floats out(batch * cols * lanes, 0.0f);
  for (std::size_t b = 0; b < batch; ++b) transpose(x + b * rows * cols, rows, cols, out.data() + b * cols * lanes, lanes);
  return out;
}

// Row r of a gradient: written (beta 0) or added to (beta 1).
void write_row(const GradientTarget& g, std::size_t r, std::size_t width, const Batch& v) {
  if (!g.data) return;
  float* at = g.data + r * width;
  store_tail(at, width, g.beta == 0.0f ? v : v + row(at, 0, width));
}

// m / (1 - p) for the weights of row r of [B n_q, n_k] (lane j: weight j), or 1 without dropout.
Batch keep(const std::optional<DropoutMask>& mask, std::size_t r, std::size_t nk) {
  return mask ? mask->factors(DropoutMask::indices_from(r * nk)) : Batch(1.0f);
}

// Rows r0 + [0, R) of [B n_q] (all in sequence b), with sequence b's keys by columns:
// s_r = scale sum_x q_rx K^T_x,  w_r = softmax_lanes(s_r),  o_r = sum_j (w_rj m_rj / (1 - p)) v_j
template <std::size_t R>
void forward_rows(const AttentionInputs& in, float scale, const std::optional<DropoutMask>& mask, const float* key_columns,
                  std::size_t b, std::size_t r0, float* w, float* out) {
  Batch scores[R], o[R];
  for (std::size_t r = 0; r < R; ++r) scores[r] = o[r] = Batch(0.0f);
  for (std::size_t x = 0; x < in.p; ++x) {
    const Batch kx = Batch::load_aligned(key_columns + x * lanes);
    for (std::size_t r = 0; r < R; ++r) scores[r] = xsimd::fma(Batch(in.q[(r0 + r) * in.p + x]), kx, scores[r]);
  }
  alignas(64) float dropped[R][lanes];
  for (std::size_t r = 0; r < R; ++r) {
    const Batch wr = softmax_lanes(scores[r] * Batch(scale), in.valid[r0 + r]);  // 0 past n_k: invalid lanes
    if (w) store_tail(w + (r0 + r) * in.nk, in.nk, wr);
    (wr * keep(mask, r0 + r, in.nk)).store_aligned(dropped[r]);
  }
  for (std::size_t j = 0; j < in.nk; ++j) {
    const Batch vj = row(in.v + b * in.nk * in.pv, j, in.pv);
    for (std::size_t r = 0; r < R; ++r) o[r] = xsimd::fma(Batch(dropped[r][j]), vj, o[r]);
  }
  for (std::size_t r = 0; r < R; ++r) store_tail(out + (r0 + r) * in.pv, in.pv, o[r]);
}

// What the backward of a group of rows reads and writes besides its rows.
struct BackwardSums {
  const float* value_columns;  // sequence b's V^T, lanes wide
  GradientTarget dq;           // [B n_q, p]
  bool scores_wanted;          // dq or dk wanted
  Batch *dk, *dv;              // sequence b's sums: dk_j (before the scale), dv_j
};

// Rows r0 + [0, R), with d_r = w_r m_r / (1 - p):  dv_j += d_rj do_r,  dd_r = sum_y do_ry V^T_y,
// ds_r = w_r (dd_r m_r / (1 - p) - sum(w_r dd_r m_r / (1 - p))),  dq_r = scale sum_j ds_rj k_j,
// dk_j += ds_rj q_r
template <std::size_t R>
void backward_rows(const AttentionInputs& in, float scale, const std::optional<DropoutMask>& mask, std::size_t b,
                   std::size_t r0, const float* w, const float* dout, const BackwardSums& sums) {
  Batch wr[R], kept[R], dor[R], qr[R], dd[R], dq[R];
  alignas(64) float dropped[R][lanes], ds[R][lanes];
  for (std::size_t r = 0; r < R; ++r) {
    wr[r] = row(w, r0 + r, in.nk), kept[r] = keep(mask, r0 + r, in.nk), dor[r] = row(dout, r0 + r, in.pv);
    qr[r] = row(in.q, r0 + r, in.p);
    (wr[r] * kept[r]).store_aligned(dropped[r]);
    dd[r] = dq[r] = Batch(0.0f);
  }
  for (std::size_t j = 0; j < in.nk; ++j)
    for (std::size_t r = 0; r < R; ++r) sums.dv[j] = xsimd::fma(Batch(dropped[r][j]), dor[r], sums.dv[j]);
  if (!sums.scores_wanted) return;
  for (std::size_t y = 0; y < in.pv; ++y) {
    const Batch vy = Batch::load_aligned(sums.value_columns + y * lanes);
    for (std::size_t r = 0; r < R; ++r) dd[r] = xsimd::fma(Batch(dout[(r0 + r) * in.pv + y]), vy, dd[r]);
  }
  for (std::size_t r = 0; r < R; ++r) {
    const Batch dw = dd[r] * kept[r];
    (wr[r] * (dw - Batch(xsimd::hadd(dw * wr[r])))).store_aligned(ds[r]);
  }
  for (std::size_t j = 0; j < in.nk; ++j) {
    const Batch kj = row(in.k + b * in.nk * in.p, j, in.p);
    for (std::size_t r = 0; r < R; ++r) {
      dq[r] = xsimd::fma(Batch(ds[r][j]), kj, dq[r]);
      sums.dk[j] = xsimd::fma(Batch(ds[r][j]), qr[r], sums.dk[j]);
    }
  }
  for (std::size_t r = 0; r < R; ++r) write_row(sums.dq, r0 + r, in.p, dq[r] * Batch(scale));
}

}  // namespace

void short_attention_forward(const AttentionInputs& in, float scale, const std::optional<DropoutMask>& mask, float* w,
                             float* out) {
  const Floats key_columns = columns(in.k, in.batch, in.nk, in.p);
  parallel_for(in.batch, sequences_per_chunk(in), [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b)
      in_groups(in.nq, [&](auto rows, std::size_t i) {
        forward_rows<decltype(rows)::value>(in, scale, mask, key_columns.data() + b * in.p * lanes, b, b * in.nq + i, w, out);
      });
  });
}

void short_attention_backward(const AttentionInputs& in, float scale, const std::optional<DropoutMask>& mask,
                              const float* w, const float* dout, GradientTarget dq, GradientTarget dk, GradientTarget dv) {
  const bool scores_wanted = dq.data || dk.data;
  const Floats value_columns = scores_wanted ? columns(in.v, in.batch, in.nk, in.pv) : Floats();
  parallel_for(in.batch, sequences_per_chunk(in), [&](std::size_t b0, std::size_t b1) {
    Batch dk_sum[lanes], dv_sum[lanes];
    for (std::size_t b = b0; b < b1; ++b) {
      for (std::size_t j = 0; j < in.nk; ++j) dk_sum[j] = dv_sum[j] = Batch(0.0f);
      const BackwardSums sums{scores_wanted ? value_columns.data() + b * in.pv * lanes : nullptr, dq, scores_wanted, dk_sum,
                              dv_sum};
      in_groups(in.nq, [&](auto rows, std::size_t i) {
        backward_rows<decltype(rows)::value>(in, scale, mask, b, b * in.nq + i, w, dout, sums);
      });
      for (std::size_t j = 0; j < in.nk; ++j) {
        write_row(dk, b * in.nk + j, in.p, dk_sum[j] * Batch(scale));
        write_row(dv, b * in.nk + j, in.pv, dv_sum[j]);
      }
    }
  });
}

}  // namespace attn
