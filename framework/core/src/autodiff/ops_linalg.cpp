// Matrix products. Gradients are written straight into the parents' gradient buffers by
// sgemm (no temporaries, no explicit transposes): beta = 1 adds to earlier contributions,
// beta = 0 fills a fresh buffer without zeroing it first.
#include "attnlab/autodiff/ops.hpp"

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

// y = op(a) op(b) per batch item;
// d op(a) = dy op(b)^T  and  d op(b) = op(a)^T dy, mapped back through the transposes.
Var bmm(const Var& a, const Var& b, bool trans_a, bool trans_b) {
  return graph_node(attn::bmm(a.value(), b.value(), trans_a, trans_b), {a, b},
                [trans_a, trans_b](Node& n) {
    const Tensor& av = n.parents[0]->value;
    const Tensor& bv = n.parents[1]->value;
    const std::size_t batch = n.value.shape()[0], m = n.value.shape()[1], cols = n.value.shape()[2];
    const std::size_t k = trans_a ? av.shape()[1] : av.shape()[2];
    const float* dy = n.grad.data();
    if (n.wants(0)) {
      const auto [da, beta] = n.parents[0]->grad_target();
      if (!trans_a)  // da [m,k] = dy [m,n] op(b)^T
        gemm_batched(batch, false, !trans_b, m, k, cols, dy, m * cols, bv.data(), k * cols, beta, da, m * k);
      else           // da [k,m] = op(b) [k,n] dy^T
        gemm_batched(batch, trans_b, true, k, m, cols, bv.data(), k * cols, dy, m * cols, beta, da, m * k);
    }
    if (n.wants(1)) {
      const auto [db, beta] = n.parents[1]->grad_target();
      if (!trans_b)  // db [k,n] = op(a)^T dy
        gemm_batched(batch, !trans_a, false, k, cols, m, av.data(), m * k, dy, m * cols, beta, db, k * cols);
      else           // db [n,k] = dy^T op(a)
        gemm_batched(batch, true, trans_a, cols, k, m, dy, m * cols, av.data(), m * k, beta, db, k * cols);
    }
  });
}

}  // namespace attn
