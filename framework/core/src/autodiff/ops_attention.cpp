// Fused attention primitives: performance choices that still pass the same gradient check.
#include <algorithm>
#include <cmath>
#include <vector>
#include <stdexcept>
#include <utility>

#include "attnlab/autodiff/ops.hpp"
#include "fast_math.hpp"
#include "softmax_rows.hpp"
#include "tile_gemm.hpp"

namespace attn {

float fast_tanh_value(float x) { return fast_tanh<float>(x); }

// s_bij = sum_h w_h tanh(q_bih + k_bjh)  (additive scoring after the W_q, W_k projections;
// never stores the [B, n_q, n_k, h] tensor). With t = tanh(q_bih + k_bjh) recomputed and
// u = ds_bij w_h (1 - t^2):  dq_bih += sum_j u,  dk_bjh += sum_i u,  dw_h += sum_bij ds_bij t
Var additive_scores(const Var& q, const Var& k, const Var& w) {
  if (q.ndim() != 3 || k.ndim() != 3 || q.dim(0) != k.dim(0) || q.dim(2) != k.dim(2) ||
      w.shape() != Shape{q.dim(2)})
    throw std::invalid_argument("additive_scores: expected q [B, n_q, h], k [B, n_k, h], w [h], got " +
                                shape_str(q.shape()) + ", " + shape_str(k.shape()) + ", " +
                                shape_str(w.shape()));
  const std::size_t batch = q.dim(0), nq = q.dim(1), nk = k.dim(1), h = q.dim(2);
  const std::size_t hv = h - h % lanes;  // vectorised part of the hidden axis
  Tensor s = Tensor::from_shape({batch, nq, nk});
  const float* qd = q.value().data();
  const float* kd = k.value().data();
  const float* wd = w.value().data();
  // Loop order (b, i), chunk of h, j: the tanh of different keys are independent, so the
  // CPU overlaps them; per-key partial sums stay in `acc` until the chunks are done.
  std::vector<Batch, xsimd::aligned_allocator<Batch>> acc(nk);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < nq; ++i) {
      const float* qi = qd + (b * nq + i) * h;
      std::fill(acc.begin(), acc.end(), Batch(0.0f));
      for (std::size_t x = 0; x < hv; x += lanes) {
        const Batch qx = Batch::load_unaligned(qi + x), wx = Batch::load_unaligned(wd + x);
        for (std::size_t j = 0; j < nk; ++j)
          acc[j] = xsimd::fma(wx, fast_tanh(qx + Batch::load_unaligned(kd + (b * nk + j) * h + x)), acc[j]);
      }
      for (std::size_t j = 0; j < nk; ++j) {
        const float* kj = kd + (b * nk + j) * h;
        float total = xsimd::hadd(acc[j]);
        for (std::size_t x = hv; x < h; ++x) total += wd[x] * fast_tanh_value(qi[x] + kj[x]);
        s.data()[(b * nq + i) * nk + j] = total;
      }
    }
  return graph_node(std::move(s), {q, k, w}, [batch, nq, nk, h, hv](Node& n) {
    const float* qd = n.parents[0]->value.data();
    const float* kd = n.parents[1]->value.data();
    const float* wd = n.parents[2]->value.data();
    const float* ds = n.grad.data();
    // Gradients are gathered in local buffers (always) and added to the parents' that want one.
    Tensor dq = xt::zeros<float>({batch, nq, h}), dk = xt::zeros<float>({batch, nk, h});
    Tensor dw = xt::zeros<float>({h});
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < nq; ++i) {
        const float* qi = qd + (b * nq + i) * h;
        const float* dsi = ds + (b * nq + i) * nk;  // masked keys have ds = 0: nothing flows back
        float* dqi = dq.data() + (b * nq + i) * h;
        for (std::size_t x = 0; x < hv; x += lanes) {  // same loop order as the forward
          const Batch qx = Batch::load_unaligned(qi + x), wx = Batch::load_unaligned(wd + x);
          Batch dq_acc(0.0f), dw_acc(0.0f);
          for (std::size_t j = 0; j < nk; ++j) {
            const Batch g(dsi[j]);
            float* dkj = dk.data() + (b * nk + j) * h + x;
            const Batch t = fast_tanh(qx + Batch::load_unaligned(kd + (b * nk + j) * h + x));
            const Batch u = g * wx * (Batch(1.0f) - t * t);
            dq_acc += u;
            (Batch::load_unaligned(dkj) + u).store_unaligned(dkj);
            dw_acc = xsimd::fma(g, t, dw_acc);
          }
          (Batch::load_unaligned(dqi + x) + dq_acc).store_unaligned(dqi + x);
          (Batch::load_unaligned(dw.data() + x) + dw_acc).store_unaligned(dw.data() + x);
        }
        for (std::size_t j = 0; j < nk; ++j) {
          const float* kj = kd + (b * nk + j) * h;
          float* dkj = dk.data() + (b * nk + j) * h;
          for (std::size_t x = hv; x < h; ++x) {
            const float t = fast_tanh_value(qi[x] + kj[x]);
            const float u = dsi[j] * wd[x] * (1.0f - t * t);
            dqi[x] += u;
            dkj[x] += u;
            dw.data()[x] += dsi[j] * t;
          }
        }
      }
    n.accumulate(0, dq);
    n.accumulate(1, dk);
    n.accumulate(2, dw);
  });
}

namespace {

// Queries per block of softmax_attention: a block's scores (rows x n_k floats) fit in 64 KB,
// so they are still in cache when the softmax and the pooling read them. Measured on W3 L512
// (docs/performance.md): blocks of 64 KB 583-585 ms, 128 KB 591-597 ms, 32 KB 593-599 ms.
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

// x [rows, cols] -> out [cols, rows]: keys and values transposed once per sequence, so that the
// products Q Kᵀ and dO Vᵀ read rows.
void transpose(const float* x, std::size_t rows, std::size_t cols, float* out) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) out[j * rows + i] = x[i * cols + j];
}

}  // namespace

// Per sequence b and block of query rows Q_i (shapes [rows, p]; K, V [n_k, p], [n_k, p_v]):
//   forward   W_i = masked_softmax(scale Q_i K^T) (computed in place in W's rows),  O_i = W_i V
//   backward  dW_i = dO_i V^T,  dS_i = W_i * (dW_i - rowsum(dW_i * W_i))  (in place),
//             dQ_i = scale dS_i K,  dK += scale dS_i^T Q_i,  dV += W_i^T dO_i
// Each block's scores and their gradients are read while still in cache; the unfused path
// writes and reads the [B, n_q, n_k] scores, weights and their gradients to memory five times.
// The products with a row-major right operand go through tile_gemm (product above).
FusedAttention softmax_attention(const Var& q, const Var& k, const Var& v, float scale, const ValidLens& lens) {
  if (q.ndim() != 3 || k.ndim() != 3 || v.ndim() != 3 || q.dim(0) != k.dim(0) || v.dim(0) != k.dim(0) ||
      q.dim(2) != k.dim(2) || v.dim(1) != k.dim(1))
    throw std::invalid_argument("softmax_attention: expected q [B, n_q, p], k [B, n_k, p], v [B, n_k, p_v], got " +
                                shape_str(q.shape()) + ", " + shape_str(k.shape()) + ", " + shape_str(v.shape()));
  const std::size_t batch = q.dim(0), nq = q.dim(1), nk = k.dim(1), p = q.dim(2), pv = v.dim(2);
  const std::size_t block = query_block(nq, nk);
  const auto valid = row_ranges({batch, nq, nk}, lens_of(lens), "softmax_attention");
  Tensor w = Tensor::from_shape({batch, nq, nk}), out = Tensor::from_shape({batch, nq, pv});
  const float *qd = q.value().data(), *kd = k.value().data(), *vd = v.value().data();
  std::vector<float> kt(p * nk);  // K_b^T
  for (std::size_t b = 0; b < batch; ++b) {
    transpose(kd + b * nk * p, nk, p, kt.data());
    for (std::size_t i = 0; i < nq; i += block) {
      const std::size_t rows = std::min(block, nq - i), row0 = b * nq + i;
      float* wi = w.data() + row0 * nk;
      product(rows, nk, p, scale, qd + row0 * p, kt.data(), 0.0f, wi);
      for (std::size_t r = 0; r < rows; ++r) softmax_row(wi + r * nk, wi + r * nk, nk, valid[row0 + r]);
      product(rows, pv, nk, 1.0f, wi, vd + b * nk * pv, 0.0f, out.data() + row0 * pv);
    }
  }
  const Var weights = constant(std::move(w));
  Var output = graph_node(std::move(out), {q, k, v}, [weights, scale, batch, nq, nk, p, pv, block](Node& n) {
    const float *qd = n.parents[0]->value.data(), *kd = n.parents[1]->value.data(), *vd = n.parents[2]->value.data();
    const float *wd = weights.value().data(), *dout = n.grad.data();
    // Each gradient is written block by block, so when two of q, k and v are one node (self-
    // attention on x itself) a block of one would land on rows another has not written yet, and
    // without queries no block writes dK and dV at all: then they add into zero-filled buffers.
    const bool into_zeros = n.parents[0] == n.parents[1] || n.parents[1] == n.parents[2] || n.parents[0] == n.parents[2] || nq == 0;
    const auto target = [&n, into_zeros](std::size_t i) -> std::pair<float*, float> {
      if (!n.wants(i)) return {nullptr, 0.0f};
      return into_zeros ? std::pair<float*, float>{n.parents[i]->grad_buffer().data(), 1.0f} : n.parents[i]->grad_target();
    };
    const auto [dq, beta_q] = target(0);
    const auto [dk, beta_k] = target(1);
    const auto [dv, beta_v] = target(2);
    const bool scores_wanted = dq || dk;
    std::vector<float> ds(scores_wanted ? block * nk : 0), vt(scores_wanted ? pv * nk : 0);  // a block's dW, then dS; V_b^T
    for (std::size_t b = 0; b < batch; ++b) {
      if (scores_wanted) transpose(vd + b * nk * pv, nk, pv, vt.data());
      for (std::size_t i = 0; i < nq; i += block) {
        const std::size_t rows = std::min(block, nq - i), row0 = b * nq + i;
        const float *wi = wd + row0 * nk, *dout_i = dout + row0 * pv;
        if (dv) gemm(true, false, nk, pv, rows, 1.0f, wi, dout_i, i ? 1.0f : beta_v, dv + b * nk * pv);
        if (!scores_wanted) continue;
        product(rows, nk, pv, 1.0f, dout_i, vt.data(), 0.0f, ds.data());
        for (std::size_t r = 0; r < rows; ++r) softmax_row_backward(wi + r * nk, ds.data() + r * nk, ds.data() + r * nk, nk, 0.0f);
        if (dq) product(rows, p, nk, scale, ds.data(), kd + b * nk * p, beta_q, dq + row0 * p);
        if (dk) gemm(true, false, nk, p, rows, scale, ds.data(), qd + row0 * p, i ? 1.0f : beta_k, dk + b * nk * p);
      }
    }
  });
  return {std::move(output), weights};
}

// s_bij = sum_d (q_bid - k_bjd)^2, summed from the differences (not ||q||^2 + ||k||^2 - 2 q.k,
// which cancels badly when q and k are large and close — the Nadaraya-Watson regime);
// dq_bi += sum_j 2 ds_bij (q_bi - k_bj),  dk_bj -= sum_i 2 ds_bij (q_bi - k_bj)
Var squared_distances(const Var& q, const Var& k) {
  if (q.ndim() != 3 || k.ndim() != 3 || q.dim(0) != k.dim(0) || q.dim(2) != k.dim(2))
    throw std::invalid_argument("squared_distances: expected q [B, n_q, d] and k [B, n_k, d], got " +
                                shape_str(q.shape()) + " and " + shape_str(k.shape()));
  const std::size_t batch = q.dim(0), nq = q.dim(1), nk = k.dim(1), d = q.dim(2);
  Tensor s = Tensor::from_shape({batch, nq, nk});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < nq; ++i)
      for (std::size_t j = 0; j < nk; ++j) {
        const float* qi = q.value().data() + (b * nq + i) * d;
        const float* kj = k.value().data() + (b * nk + j) * d;
        float total = 0.0f;
        for (std::size_t x = 0; x < d; ++x) total += (qi[x] - kj[x]) * (qi[x] - kj[x]);
        s(b, i, j) = total;
      }
  return graph_node(std::move(s), {q, k}, [batch, nq, nk, d](Node& n) {
    const float* qd = n.parents[0]->value.data();
    const float* kd = n.parents[1]->value.data();
    Tensor dq = xt::zeros<float>({batch, nq, d}), dk = xt::zeros<float>({batch, nk, d});
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t j = 0; j < nk; ++j) {
          const float g = 2.0f * n.grad(b, i, j);
          for (std::size_t x = 0; x < d; ++x) {
            const float diff = qd[(b * nq + i) * d + x] - kd[(b * nk + j) * d + x];
            dq.data()[(b * nq + i) * d + x] += g * diff;
            dk.data()[(b * nk + j) * d + x] -= g * diff;
          }
        }
    n.accumulate(0, dq);
    n.accumulate(1, dk);
  });
}

// d = sqrt(s), s = squared_distances(q, k);  ds += dd / (2 d) where d > 0, 0 where d = 0.
Var distances(const Var& q, const Var& k) {
  const Var s = squared_distances(q, k);
  return graph_node(xt::sqrt(s.value()), {s}, [](Node& n) {
    n.accumulate(0, xt::where(n.value > 0.0f, n.grad / (2.0f * n.value), 0.0f));
  });
}

// x / sqrt(sum(x^2) + eps) over the last axis (composed)
Var l2_normalize(const Var& x, float eps) {
  return x / sqrt(sum(square(x), {x.ndim() - 1}, true) + eps);
}

}  // namespace attn
