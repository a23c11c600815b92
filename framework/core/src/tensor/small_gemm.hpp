// Products small in every dimension, computed without cblas_sgemm (small_gemm.cpp says why).
// Private to framework/core/src: gemm() (blas.cpp) picks this kernel when is_small_product.
#pragma once

#include <cstddef>

namespace attn {

constexpr std::size_t max_small_side = 64;              // m, n and k each at most this
constexpr std::size_t max_small_volume = 32 * 32 * 32;  // and m n k at most this

bool is_small_product(std::size_t m, std::size_t n, std::size_t k);

// C[m, n] = alpha op(A) op(B) + beta C, row-major, op(X) = X or X^T, as gemm() (tensor.hpp).
void small_gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                const float* b, float beta, float* c);

}  // namespace attn
