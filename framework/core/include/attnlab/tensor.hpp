// attnlab tensors: float32 n-d arrays over xtensor, plus the few kernels the autodiff layer
// builds on (BLAS products, broadcasting reductions, sequence masks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/tensor_memory.hpp"

namespace attn {

using Tensor = xt::xarray<float, xt::layout_type::row_major, TensorAllocator<float>>;  // float32, any rank
using IntTensor = xt::xarray<int>;    // token ids, labels, valid lengths
using Shape = std::vector<std::size_t>;
// Tensors by name, in a meaningful order (parameters by module path, maps by kind, ...).
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

Shape shape_of(const Tensor& t);
std::string shape_str(const Shape& s);  // "[2, 3, 4]"
std::size_t num_elements(const Shape& s);

// C[m,n] = alpha * op(A) op(B) + beta * C over raw row-major buffers; op(X) = X or X^T.
// The single place attnlab calls cblas_sgemm.
void gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k,
          const float* a, const float* b, float beta, float* c);
// The same with C = alpha op(A) op(B) + beta C (a scaled product in one pass).
void gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
          const float* a, const float* b, float beta, float* c);
// The batched form: `batch` independent gemms with the given element strides.
void gemm_batched(std::size_t batch, bool trans_a, bool trans_b, std::size_t m, std::size_t n,
                  std::size_t k, const float* a, std::size_t stride_a, const float* b,
                  std::size_t stride_b, float beta, float* c, std::size_t stride_c, float alpha = 1.0f);
// Set the number of BLAS threads (1 inside parallel runs, to avoid oversubscription).
void set_blas_threads(int n);
// Programs call this once at start: training allocates and frees tensors of the same sizes
// at a high rate, and glibc's default hands blocks over 128 KiB back to the kernel on every
// free, so each reuse pays for page faults (measured: +25% on a 512x512 matmul). This keeps
// freed blocks in the heap for reuse.
void keep_tensor_memory_in_heap();

// matmul: a [..., k] x b [k, n] -> [..., n]  (leading axes of a are folded into rows)
Tensor matmul(const Tensor& a, const Tensor& b);
// bmm: op(a) [B, m, k] x op(b) [B, k, n] -> [B, m, n]; op transposes the last two axes.
Tensor bmm(const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false);

// Sum g over the axes that numpy broadcasting expanded, so the result has `target` shape.
Tensor sum_to(const Tensor& g, const Shape& target);
// Sum over one axis; keepdims leaves a size-1 axis in its place.
Tensor sum_axis(const Tensor& x, std::size_t axis, bool keepdims);

// d2l's sequence_mask: x [B, T, ...]; entries at t >= valid_lens[b] become `value`.
Tensor sequence_mask(const Tensor& x, const IntTensor& valid_lens, float value = 0.0f);

}  // namespace attn
