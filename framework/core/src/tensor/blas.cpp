// The only translation unit that includes <cblas.h>: it clashes with xtensor-blas's enums.
#include <cblas.h>

#include <cstddef>

extern "C" void openblas_set_num_threads(int);

namespace attn {

void gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
          const float* a, const float* b, float beta, float* c) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // empty product: C = beta * C
    for (std::size_t i = 0; i < m * n; ++i) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
    return;
  }
  const int lda = static_cast<int>(trans_a ? m : k);
  const int ldb = static_cast<int>(trans_b ? k : n);
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, lda, b, ldb, beta, c, static_cast<int>(n));
}

void gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k,
          const float* a, const float* b, float beta, float* c) {
  gemm(trans_a, trans_b, m, n, k, 1.0f, a, b, beta, c);
}

void gemm_batched(std::size_t batch, bool trans_a, bool trans_b, std::size_t m, std::size_t n,
                  std::size_t k, const float* a, std::size_t stride_a, const float* b,
                  std::size_t stride_b, float beta, float* c, std::size_t stride_c, float alpha) {
  for (std::size_t i = 0; i < batch; ++i)
    gemm(trans_a, trans_b, m, n, k, alpha, a + i * stride_a, b + i * stride_b, beta, c + i * stride_c);
}

void set_blas_threads(int n) { openblas_set_num_threads(n); }

}  // namespace attn
