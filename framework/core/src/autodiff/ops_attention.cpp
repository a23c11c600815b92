// Scoring primitives computed without their large intermediates: additive scores (no [B, n_q, n_k, h]
// tensor) and (squared) distances; and the L2 normalisation of kernel scorings.
#include <algorithm>
#include <cmath>
#include <vector>
#include <stdexcept>
#include <utility>

#include "attnlab/autodiff/ops.hpp"
#include "fast_math.hpp"

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
