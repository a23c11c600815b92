// Matrix products. Gradients are written straight into the parents' gradient buffers by
// sgemm (no temporaries, no explicit transposes): beta = 1 adds to earlier contributions,
// beta = 0 fills a fresh buffer without zeroing it first.
#include <algorithm>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "fast_math.hpp"

namespace attn {

// y = a b with a viewed as [m, k] (leading axes folded), b [k, n];
// da += dy b^T,  db += a^T dy
Var matmul(const Var& a, const Var& b) {
  return graph_node(attn::matmul(a.value(), b.value()), {a, b}, [](Node& n) {
    const Tensor& av = n.parents[0]->value;
    const Tensor& bv = n.parents[1]->value;
    const std::size_t k = bv.shape()[0], cols = bv.shape()[1], rows = av.size() / std::max<std::size_t>(k, 1);
    if (n.wants(0)) {
      const auto [da, beta] = n.parents[0]->grad_target();
      gemm(false, true, rows, k, cols, n.grad.data(), bv.data(), beta, da);
    }
    if (n.wants(1)) {
      const auto [db, beta] = n.parents[1]->grad_target();
      gemm(true, false, k, cols, rows, av.data(), n.grad.data(), beta, db);
    }
  });
}

// y = x w + b;  dx += dy w^T,  dw += x^T dy,  db += sum over rows of dy
Var linear(const Var& x, const Var& w, const Var& b) {
  if (x.ndim() < 1 || w.ndim() != 2 || x.shape().back() != w.dim(0) || b.shape() != Shape{w.dim(1)})
    throw std::invalid_argument("linear: expected x [..., k], w [k, n] and b [n], got " + shape_str(x.shape()) + ", " +
                                shape_str(w.shape()) + " and " + shape_str(b.shape()));
  const std::size_t k = w.dim(0), cols = w.dim(1), rows = x.value().size() / std::max<std::size_t>(k, 1);
  Shape out = x.shape();
  out.back() = cols;
  Tensor y = Tensor::from_shape(out);
  for (std::size_t r = 0; r < rows; ++r) copy_row(b.value().data(), y.data() + r * cols, cols);
  gemm(false, false, rows, cols, k, x.value().data(), w.value().data(), 1.0f, y.data());
  return graph_node(std::move(y), {x, w, b}, [rows, cols, k](Node& n) {
    const float *dy = n.grad.data(), *xv = n.parents[0]->value.data(), *wv = n.parents[1]->value.data();
    if (n.wants(0)) {
      const auto [dx, beta] = n.parents[0]->grad_target();
      gemm(false, true, rows, k, cols, dy, wv, beta, dx);
    }
    if (n.wants(1)) {
      const auto [dw, beta] = n.parents[1]->grad_target();
      gemm(true, false, k, cols, rows, xv, dy, beta, dw);
    }
    if (!n.wants(2)) return;
    float* db = n.parents[2]->grad_buffer().data();
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < cols; ++j) db[j] += dy[r * cols + j];
  });
}

// y = alpha op(a) op(b) per batch item;
// d op(a) = alpha dy op(b)^T  and  d op(b) = alpha op(a)^T dy, mapped back through the transposes.
Var bmm(const Var& a, const Var& b, bool trans_a, bool trans_b, float alpha) {
  const Tensor& av = a.value();
  const Tensor& bv = b.value();
  if (av.dimension() != 3 || bv.dimension() != 3 || av.shape()[0] != bv.shape()[0] ||
      (trans_a ? av.shape()[1] : av.shape()[2]) != (trans_b ? bv.shape()[2] : bv.shape()[1]))
    throw std::invalid_argument("bmm: expected a [B, m, k] and b [B, k, n], got " + shape_str(a.shape()) + (trans_a ? "^T" : "") +
                                " and " + shape_str(b.shape()) + (trans_b ? "^T" : ""));
  const std::size_t batch = av.shape()[0], m = trans_a ? av.shape()[2] : av.shape()[1];
  const std::size_t k = trans_a ? av.shape()[1] : av.shape()[2], cols = trans_b ? bv.shape()[1] : bv.shape()[2];
  Tensor y = Tensor::from_shape({batch, m, cols});
  gemm_batched(batch, trans_a, trans_b, m, cols, k, av.data(), m * k, bv.data(), k * cols, 0.0f, y.data(), m * cols, alpha);
  return graph_node(std::move(y), {a, b}, [trans_a, trans_b, alpha, batch, m, k, cols](Node& n) {
    const float *av = n.parents[0]->value.data(), *bv = n.parents[1]->value.data(), *dy = n.grad.data();
    if (n.wants(0)) {
      const auto [da, beta] = n.parents[0]->grad_target();
      if (!trans_a)  // da [m,k] = dy [m,n] op(b)^T
        gemm_batched(batch, false, !trans_b, m, k, cols, dy, m * cols, bv, k * cols, beta, da, m * k, alpha);
      else           // da [k,m] = op(b) [k,n] dy^T
        gemm_batched(batch, trans_b, true, k, m, cols, bv, k * cols, dy, m * cols, beta, da, m * k, alpha);
    }
    if (n.wants(1)) {
      const auto [db, beta] = n.parents[1]->grad_target();
      if (!trans_b)  // db [k,n] = op(a)^T dy
        gemm_batched(batch, !trans_a, false, k, cols, m, av, m * k, dy, m * cols, beta, db, k * cols, alpha);
      else           // db [n,k] = dy^T op(a)
        gemm_batched(batch, true, trans_a, cols, k, m, dy, m * cols, av, m * k, beta, db, k * cols, alpha);
    }
  });
}

Var bmm(const Var& a, const Var& b, bool trans_a, bool trans_b) { return bmm(a, b, trans_a, trans_b, 1.0f); }

}  // namespace attn
