// C = alpha op(A) op(B) + beta C for products small in every dimension: the attention products
// of a Transformer at d_model 32 (10 x 8 by 8 x 10, one per head and sequence: W5 runs some 9000
// per batch) and the rows of a decoding step. On such shapes cblas_sgemm's fixed cost (a locked
// buffer allocation, packing both operands) outweighs the arithmetic. Measured per product,
// one thread, against OpenBLAS 0.3.21 (Haswell kernels): 10 x 10 x 8 (B^T) 0.063 against
// 0.135 us, 10 x 8 x 10 0.087 against 0.135, 32 x 32 x 32 0.76 against 0.97, 64 x 64 x 8
// 0.66 against 1.10. Beyond 32^3 multiply-adds sgemm's register blocking wins.
//
// The kernel: op(B) is copied once into a zero-padded [k, V vectors] block on the stack; each
// row i of C is sum_k op(A)[i, k] op(B)[k, :], one broadcast multiply-add per k and vector into
// V accumulators held in registers (V a template argument: with a run-time count they live on
// the stack and the kernel is twice as slow), summed in k order: the same floats on every
// thread count.
#include "small_gemm.hpp"

#include <algorithm>

#include "../autodiff/fast_math.hpp"

namespace attn {
namespace {

// op(B) [k, n] as rows of `width` floats (whole vectors), zeros past n.
void pack_b(bool trans_b, std::size_t n, std::size_t k, const float* b, std::size_t width, float* packed) {
  for (std::size_t kk = 0; kk < k; ++kk) {
    float* row = packed + kk * width;
    if (trans_b)
      for (std::size_t j = 0; j < n; ++j) row[j] = b[j * k + kk];  // B is [n, k]
    else
      std::copy_n(b + kk * n, n, row);                              // B is [k, n]
    std::fill(row + n, row + width, 0.0f);
  }
}

// c[0, n) = alpha acc + beta c (c is not read when beta is 0: it may hold anything).
template <std::size_t V>
void store_row(const Batch (&acc)[V], std::size_t n, float alpha, float beta, float* c) {
  for (std::size_t v = 0; v < V; ++v) {
    const std::size_t count = std::min(lanes, n - v * lanes);
    float* out = c + v * lanes;
    Batch r = acc[v] * Batch(alpha);
    if (beta != 0.0f)
      r = xsimd::fma(Batch(beta), count == lanes ? Batch::load_unaligned(out) : load_tail(out, count, 0.0f), r);
    if (count == lanes)
      r.store_unaligned(out);
    else
      store_tail(out, count, r);
  }
}

template <std::size_t V>
void product(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
             const float* b, float beta, float* c) {
  constexpr std::size_t width = V * lanes;
  alignas(64) float packed[max_small_side * width];
  pack_b(trans_b, n, k, b, width, packed);
  for (std::size_t i = 0; i < m; ++i) {
    Batch acc[V];
    for (Batch& x : acc) x = Batch(0.0f);
    for (std::size_t kk = 0; kk < k; ++kk) {
      const Batch a_ik(trans_a ? a[kk * m + i] : a[i * k + kk]);  // A is [k, m] or [m, k]
      for (std::size_t v = 0; v < V; ++v) acc[v] = xsimd::fma(a_ik, Batch::load_aligned(packed + kk * width + v * lanes), acc[v]);
    }
    store_row(acc, n, alpha, beta, c + i * n);
  }
}

template <std::size_t... V>
void product_of_width(std::size_t vectors, std::index_sequence<V...>, bool trans_a, bool trans_b, std::size_t m,
                      std::size_t n, std::size_t k, float alpha, const float* a, const float* b, float beta, float* c) {
  ((vectors == V + 1 ? product<V + 1>(trans_a, trans_b, m, n, k, alpha, a, b, beta, c) : void()), ...);
}

}  // namespace

bool is_small_product(std::size_t m, std::size_t n, std::size_t k) {
  return m <= max_small_side && n <= max_small_side && k <= max_small_side && m * n * k <= max_small_volume;
}

void small_gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                const float* b, float beta, float* c) {
  constexpr std::size_t max_vectors = (max_small_side + lanes - 1) / lanes;
  product_of_width((n + lanes - 1) / lanes, std::make_index_sequence<max_vectors>{}, trans_a, trans_b, m, n, k, alpha,
                   a, b, beta, c);
}

}  // namespace attn
