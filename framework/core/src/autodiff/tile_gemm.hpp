// Products computed tile by tile in registers, without packing (private to framework/src/autodiff).
//
//   C [m, n] = alpha A B + beta C,  A [m, k] and B [k, n] row-major with leading dimensions
//
// OpenBLAS copies ("packs") both operands into its own layout before every product, and its
// kernel loads and stores C for each block of k. That costs little when m, n and k are all
// large, but attention's per-head products have k = 32 (scores: Q Kᵀ) or n = 32 (pooling: W V)
// and run at 55-60% of the sgemm rate there (docs/performance.md, W3). Here each tile of
// 8 rows x 2 vectors of C stays in 16 registers for the whole of k: per step of k, two vector
// loads of B, 8 broadcasts of A and 16 fused multiply-adds. Measured on W3's per-head shapes:
// 82-88 GFLOP/s against OpenBLAS's 53-60 (one thread, AVX-512; docs/performance.md).
//
// Use it when n >= 2 vectors (tile_gemm_fits); B rows are read at stride ldb, so a B of long rows
// (ldb of many KB) with a long k is slower here than in OpenBLAS (W3's dV = Wᵀ dO: 46-62 GFLOP/s).
#pragma once

#include <cstddef>

#include "fast_math.hpp"

namespace attn {

constexpr std::size_t tile_rows = 8;

// Whether C is wide enough for at least one tile of 2 vectors.
inline bool tile_gemm_fits(std::size_t n) { return n >= 2 * lanes; }

namespace tile_detail {

// Rows [0, R) of C, columns [0, V lanes): the k-loop in registers, then C = alpha acc + beta C.
template <std::size_t R, std::size_t V>
void tile(std::size_t k, float alpha, const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta,
          float* c, std::size_t ldc) {
  Batch acc[R][V];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t v = 0; v < V; ++v) acc[r][v] = Batch(0.0f);
  for (std::size_t x = 0; x < k; ++x) {
    Batch bx[V];
    for (std::size_t v = 0; v < V; ++v) bx[v] = Batch::load_unaligned(b + x * ldb + v * lanes);
    for (std::size_t r = 0; r < R; ++r) {
      const Batch ar(a[r * lda + x]);
      for (std::size_t v = 0; v < V; ++v) acc[r][v] = xsimd::fma(ar, bx[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t v = 0; v < V; ++v) {
      float* cv = c + r * ldc + v * lanes;
      const Batch scaled = Batch(alpha) * acc[r][v];
      (beta == 0.0f ? scaled : xsimd::fma(Batch(beta), Batch::load_unaligned(cv), scaled)).store_unaligned(cv);
    }
}

// Columns [0, V lanes) of rows [0, m): whole tiles of tile_rows, then the remaining rows.
template <std::size_t V>
void column_strip(std::size_t m, std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
                  std::size_t ldb, float beta, float* c, std::size_t ldc) {
  using Tile = void (*)(std::size_t, float, const float*, std::size_t, const float*, std::size_t, float, float*, std::size_t);
  static constexpr Tile partial[tile_rows] = {nullptr,     tile<1, V>, tile<2, V>, tile<3, V>,
                                              tile<4, V>, tile<5, V>, tile<6, V>, tile<7, V>};
  std::size_t r = 0;
  for (; r + tile_rows <= m; r += tile_rows) tile<tile_rows, V>(k, alpha, a + r * lda, lda, b, ldb, beta, c + r * ldc, ldc);
  if (r < m) partial[m - r](k, alpha, a + r * lda, lda, b, ldb, beta, c + r * ldc, ldc);
}

}  // namespace tile_detail

// C = alpha A B + beta C (beta 0: C is only written). Columns in strips of 2 vectors, then one
// vector, then one column at a time.
inline void tile_gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                      const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc) {
  std::size_t j = 0;
  for (; j + 2 * lanes <= n; j += 2 * lanes) tile_detail::column_strip<2>(m, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc);
  if (j + lanes <= n) tile_detail::column_strip<1>(m, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc), j += lanes;
  for (; j < n; ++j)
    for (std::size_t r = 0; r < m; ++r) {
      float total = 0.0f;
      for (std::size_t x = 0; x < k; ++x) total += a[r * lda + x] * b[x * ldb + j];
      c[r * ldc + j] = alpha * total + (beta == 0.0f ? 0.0f : beta * c[r * ldc + j]);
    }
}

}  // namespace attn
