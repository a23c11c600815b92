// Matrix products. Gradients are written straight into the parents' gradient buffers by
// sgemm (no temporaries, no explicit transposes): beta = 1 adds to earlier contributions,
// beta = 0 fills a fresh buffer without zeroing it first.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/parallel.hpp"
#include "column_sums.hpp"
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
  }, reads_parents({0, 1}));
}

namespace {

// Shapes of a linear layer: x viewed as [rows, k], w [k, cols].
struct LinearShape {
  std::size_t rows, cols, k;
};

LinearShape linear_shape(const Var& x, const Var& w, const Var& b, const char* op) {
  if (x.ndim() < 1 || w.ndim() != 2 || x.shape().back() != w.dim(0) || b.shape() != Shape{w.dim(1)})
    throw std::invalid_argument(std::string(op) + ": expected x [..., k], w [k, n] and b [n], got " + shape_str(x.shape()) +
                                ", " + shape_str(w.shape()) + " and " + shape_str(b.shape()));
  const std::size_t k = w.dim(0);
  return {x.value().size() / std::max<std::size_t>(k, 1), w.dim(1), k};
}

// x w + b: the bias written first, the product added onto it.
Tensor linear_value(const Var& x, const Var& w, const Var& b, LinearShape s) {
  Shape out = x.shape();
  out.back() = s.cols;
  Tensor y = Tensor::from_shape(out);
  parallel_for(s.rows, rows_per_chunk(s.cols), [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r) copy_row(b.value().data(), y.data() + r * s.cols, s.cols);
  });
  gemm(false, false, s.rows, s.cols, s.k, x.value().data(), w.value().data(), 1.0f, y.data());
  return y;
}

// dx += dy w^T and dw += x^T dy, for the parents x and w of n.
void linear_product_gradients(Node& n, const float* dy, LinearShape s) {
  const float *xv = n.parents[0]->value.data(), *wv = n.parents[1]->value.data();
  if (n.wants(0)) {
    const auto [dx, beta] = n.parents[0]->grad_target();
    gemm(false, true, s.rows, s.k, s.cols, dy, wv, beta, dx);
  }
  if (n.wants(1)) {
    const auto [dw, beta] = n.parents[1]->grad_target();
    gemm(true, false, s.k, s.cols, s.rows, xv, dy, beta, dw);
  }
}

// db += the sum of dz's rows (column_sums.hpp).
void bias_gradient(const float* dz, LinearShape s, float* db) {
  add_column_sums(s.rows, s.cols, db, [&](std::size_t r, std::size_t j) { return dz[r * s.cols + j]; });
}

}  // namespace

// y = x w + b;  dx += dy w^T,  dw += x^T dy,  db += sum over rows of dy
Var linear(const Var& x, const Var& w, const Var& b) {
  const LinearShape s = linear_shape(x, w, b, "linear");
  return graph_node(linear_value(x, w, b, s), {x, w, b}, [s](Node& n) {
    linear_product_gradients(n, n.grad.data(), s);
    if (n.wants(2)) bias_gradient(n.grad.data(), s, n.parents[2]->grad_buffer().data());
  }, reads_parents({0, 1}));
}

// y = relu(x w + b);  dz = dy * [y > 0],  dx += dz w^T,  dw += x^T dz,  db += sum over rows of dz.
// One node: the ReLU is applied in place on the product, so no second tensor of the layer's size
// is made either way. dz is written over dy row by row (a backward may overwrite its own node's
// gradient, var.hpp). The same floats as relu(linear(x, w, b)).
Var linear_relu(const Var& x, const Var& w, const Var& b) {
  const LinearShape s = linear_shape(x, w, b, "linear_relu");
  Tensor y = linear_value(x, w, b, s);
  parallel_for(s.rows, rows_per_chunk(s.cols), [&](std::size_t r0, std::size_t r1) {
    relu_row(y.data() + r0 * s.cols, y.data() + r0 * s.cols, (r1 - r0) * s.cols);
  });
  return graph_node(std::move(y), {x, w, b}, [s](Node& n) {
    parallel_for(s.rows, rows_per_chunk(s.cols), [&](std::size_t r0, std::size_t r1) {
      float* dz = n.grad.data() + r0 * s.cols;
      relu_row_backward(n.value.data() + r0 * s.cols, dz, dz, (r1 - r0) * s.cols, 0.0f);
    });
    if (n.wants(2)) bias_gradient(n.grad.data(), s, n.parents[2]->grad_buffer().data());
    linear_product_gradients(n, n.grad.data(), s);
  }, reads_parents({0, 1}, true));
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
  }, reads_parents({0, 1}));
}

Var bmm(const Var& a, const Var& b, bool trans_a, bool trans_b) { return bmm(a, b, trans_a, trans_b, 1.0f); }

}  // namespace attn
