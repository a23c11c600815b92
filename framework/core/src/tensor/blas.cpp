// The only translation unit that includes <cblas.h>: it clashes with xtensor-blas's enums.
//
// A large product is split into chunks (attnlab/parallel.hpp) by the shape alone, so that its
// floats are the same at any thread count:
//   - a long inner dimension (a weight's gradient, x^T dy over all rows of a batch): k in
//     chunks, one partial product each, added to C in chunk order;
//   - otherwise C's rows, or its columns when they outnumber the rows: each chunk one sgemm.
// Splitting C's rows makes every chunk pack B again (OpenBLAS copies each operand into its own
// layout), and splitting k needs a partial C per chunk; a few large chunks keep both small.
#include <cblas.h>

#include <algorithm>
#include <cstddef>

#include "attnlab/parallel.hpp"
#include "attnlab/tensor.hpp"

extern "C" void openblas_set_num_threads(int);

namespace attn {
namespace {

constexpr double flops_per_chunk = 16e6;  // about 0.2 ms of one core's sgemm rate
constexpr std::size_t most_chunks = 8;
constexpr std::size_t most_inner_chunks = 4;  // each but the first writes a partial C, then added
// Rows (or columns) of C a chunk has at least: each chunk packs the other operand again, which
// made a 512 x 512 x 512 product in chunks of 64 rows 23% slower on one thread, and W3 at length
// 128 (2048 rows) in chunks of 256 rows 14%.
constexpr std::size_t least_rows = 512;

// C = alpha op(A) op(B) + beta C, with leading dimensions.
struct Product {
  bool trans_a, trans_b;
  std::size_t m, n, k;
  float alpha;
  const float* a;
  std::size_t lda;
  const float* b;
  std::size_t ldb;
  float beta;
  float* c;
  std::size_t ldc;
};

void sgemm(const Product& p) {
  cblas_sgemm(CblasRowMajor, p.trans_a ? CblasTrans : CblasNoTrans, p.trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), p.alpha, p.a, static_cast<int>(p.lda),
              p.b, static_cast<int>(p.ldb), p.beta, p.c, static_cast<int>(p.ldc));
}

// Rows [r0, r1) of op(A) and of C.
Product rows_of(Product p, std::size_t r0, std::size_t r1) {
  p.a += p.trans_a ? r0 : r0 * p.lda;
  p.c += r0 * p.ldc;
  p.m = r1 - r0;
  return p;
}

// Columns [c0, c1) of op(B) and of C.
Product columns_of(Product p, std::size_t c0, std::size_t c1) {
  p.b += p.trans_b ? c0 * p.ldb : c0;
  p.c += c0;
  p.n = c1 - c0;
  return p;
}

// The slice [k0, k1) of the inner dimension, its product written (beta 0) to `into` [m, n].
Product inner_of(Product p, std::size_t k0, std::size_t k1, float* into) {
  p.a += p.trans_a ? k0 * p.lda : k0;
  p.b += p.trans_b ? k0 : k0 * p.ldb;
  p.k = k1 - k0;
  if (into) {
    p.c = into;
    p.ldc = p.n;
    p.beta = 0.0f;
  }
  return p;
}

// k in chunks: the first chunk's product goes to C (with beta), each other's to a partial of
// its own, and the partials are added to C in chunk order, row by row.
void split_inner(const Product& p, std::size_t grain) {
  const std::size_t chunks = (p.k + grain - 1) / grain;
  Tensor partials = Tensor::from_shape({(chunks - 1) * p.m * p.n});  // not zeroed: sgemm writes them (beta 0)
  parallel_for(chunks, 1, [&](std::size_t c0, std::size_t c1) {
    for (std::size_t c = c0; c < c1; ++c)
      sgemm(inner_of(p, c * grain, std::min(p.k, (c + 1) * grain), c ? partials.data() + (c - 1) * p.m * p.n : nullptr));
  });
  parallel_for(p.m, chunk_size(p.m, most_chunks, 1), [&](std::size_t r0, std::size_t r1) {
    for (std::size_t c = 1; c < chunks; ++c)
      for (std::size_t r = r0; r < r1; ++r) {
        const float* from = partials.data() + (c - 1) * p.m * p.n + r * p.n;
        float* to = p.c + r * p.ldc;
        for (std::size_t j = 0; j < p.n; ++j) to[j] += from[j];
      }
  });
}

void product(const Product& p) {
  const double flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  const auto chunks = static_cast<std::size_t>(std::min<double>(flops / flops_per_chunk, most_chunks));
  if (chunks < 2 || inside_chunk()) return sgemm(p);
  if (p.k >= 2 * std::max(p.m, p.n)) return split_inner(p, chunk_size(p.k, std::min(chunks, most_inner_chunks), 1, 16));
  if (p.m >= p.n)
    return parallel_for(p.m, chunk_size(p.m, chunks, least_rows, 16), [&](std::size_t r0, std::size_t r1) { sgemm(rows_of(p, r0, r1)); });
  parallel_for(p.n, chunk_size(p.n, chunks, least_rows, 16), [&](std::size_t c0, std::size_t c1) { sgemm(columns_of(p, c0, c1)); });
}

}  // namespace

void gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
          const float* a, const float* b, float beta, float* c) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // empty product: C = beta * C
    for (std::size_t i = 0; i < m * n; ++i) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
    return;
  }
  product({trans_a, trans_b, m, n, k, alpha, a, trans_a ? m : k, b, trans_b ? k : n, beta, c, n});
}

void gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k,
          const float* a, const float* b, float beta, float* c) {
  gemm(trans_a, trans_b, m, n, k, 1.0f, a, b, beta, c);
}

// Items in chunks of at least flops_per_chunk (each item's own product runs in its chunk).
void gemm_batched(std::size_t batch, bool trans_a, bool trans_b, std::size_t m, std::size_t n,
                  std::size_t k, const float* a, std::size_t stride_a, const float* b,
                  std::size_t stride_b, float beta, float* c, std::size_t stride_c, float alpha) {
  if (batch == 1) return gemm(trans_a, trans_b, m, n, k, alpha, a, b, beta, c);
  const double item_flops = std::max(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k), 1.0);
  const auto least = static_cast<std::size_t>(flops_per_chunk / item_flops) + 1;
  parallel_for(batch, chunk_size(batch, batch, least), [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i)
      gemm(trans_a, trans_b, m, n, k, alpha, a + i * stride_a, b + i * stride_b, beta, c + i * stride_c);
  });
}

void set_blas_threads(int n) { openblas_set_num_threads(n); }

}  // namespace attn
