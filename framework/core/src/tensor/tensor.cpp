#include "attnlab/tensor.hpp"

#include <malloc.h>

#include <numeric>
#include <sstream>
#include <stdexcept>

namespace attn {

Shape shape_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end()); }

std::string shape_str(const Shape& s) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < s.size(); ++i) out << (i ? ", " : "") << s[i];
  out << ']';
  return out.str();
}

std::size_t num_elements(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), std::size_t{1}, std::multiplies<>());
}

void keep_tensor_memory_in_heap() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1024 << 20);
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.dimension() < 1 || b.dimension() != 2 || a.shape().back() != b.shape()[0])
    throw std::invalid_argument("matmul: expected a [..., k] and b [k, n], got " +
                                shape_str(shape_of(a)) + " and " + shape_str(shape_of(b)));
  const std::size_t k = b.shape()[0], n = b.shape()[1];
  Shape out = shape_of(a);
  out.back() = n;
  const std::size_t m = num_elements(Shape(out.begin(), out.end() - 1));
  Tensor c = Tensor::from_shape(out);
  gemm(false, false, m, n, k, a.data(), b.data(), 0.0f, c.data());
  return c;
}

Tensor bmm(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b) {
  if (a.dimension() != 3 || b.dimension() != 3 || a.shape()[0] != b.shape()[0])
    throw std::invalid_argument("bmm: expected a [B, m, k] and b [B, k, n], got " +
                                shape_str(shape_of(a)) + " and " + shape_str(shape_of(b)));
  const std::size_t batch = a.shape()[0];
  const std::size_t m = trans_a ? a.shape()[2] : a.shape()[1];
  const std::size_t k = trans_a ? a.shape()[1] : a.shape()[2];
  const std::size_t kb = trans_b ? b.shape()[2] : b.shape()[1];
  const std::size_t n = trans_b ? b.shape()[1] : b.shape()[2];
  if (k != kb)
    throw std::invalid_argument("bmm: inner sizes differ: " + shape_str(shape_of(a)) +
                                (trans_a ? "^T" : "") + " x " + shape_str(shape_of(b)) +
                                (trans_b ? "^T" : ""));
  Tensor c = Tensor::from_shape({batch, m, n});
  gemm_batched(batch, trans_a, trans_b, m, n, k, a.data(), m * k, b.data(), k * n, 0.0f, c.data(),
               m * n);
  return c;
}

Tensor sum_axis(const Tensor& x, std::size_t axis, bool keepdims) {
  if (axis >= x.dimension())
    throw std::invalid_argument("sum_axis: axis " + std::to_string(axis) + " out of range for " +
                                shape_str(shape_of(x)));
  // View x as [outer, n, inner] and add the n slabs of size `inner` (vectorisable inner loop).
  std::size_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= x.shape()[i];
  for (std::size_t i = axis + 1; i < x.dimension(); ++i) inner *= x.shape()[i];
  const std::size_t n = x.shape()[axis];
  Shape out = shape_of(x);
  if (keepdims)
    out[axis] = 1;
  else
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  Tensor r = xt::zeros<float>(out);
  const float* src = x.data();
  float* dst = r.data();
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < n; ++j) {
      const float* s = src + (o * n + j) * inner;
      float* d = dst + o * inner;
      for (std::size_t i = 0; i < inner; ++i) d[i] += s[i];
    }
  return r;
}

Tensor sum_to(const Tensor& g, const Shape& target) {
  if (shape_of(g) == target) return g;
  if (target.size() > g.dimension())
    throw std::invalid_argument("sum_to: cannot reduce " + shape_str(shape_of(g)) + " to " +
                                shape_str(target));
  Tensor r = g;
  // Leading axes that broadcasting added are summed away first.
  while (r.dimension() > target.size()) r = sum_axis(r, 0, false);
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == r.shape()[i]) continue;
    if (target[i] != 1)
      throw std::invalid_argument("sum_to: cannot reduce " + shape_str(shape_of(g)) + " to " +
                                  shape_str(target));
    r = sum_axis(r, i, true);
  }
  return r;
}

Tensor sequence_mask(const Tensor& x, const IntTensor& valid_lens, float value) {
  if (x.dimension() < 2 || valid_lens.dimension() != 1 || valid_lens.size() != x.shape()[0])
    throw std::invalid_argument("sequence_mask: expected x [B, T, ...] and valid_lens [B], got " +
                                shape_str(shape_of(x)) + " and " +
                                shape_str(Shape(valid_lens.shape().begin(), valid_lens.shape().end())));
  Tensor r = x;
  const std::size_t steps = x.shape()[1], inner = x.size() / std::max<std::size_t>(x.shape()[0] * steps, 1);
  for (std::size_t b = 0; b < x.shape()[0]; ++b)
    for (std::size_t t = static_cast<std::size_t>(std::max(valid_lens(b), 0)); t < steps; ++t)
      std::fill_n(r.data() + (b * steps + t) * inner, inner, value);
  return r;
}

}  // namespace attn
