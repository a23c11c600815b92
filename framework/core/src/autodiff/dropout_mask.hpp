// The dropout mask shared by dropout() (ops_nn.cpp) and the fused attention's dropout on its
// weights (ops_fused_attention.cpp, short_attention.cpp), so both drop the same units for the
// same seed.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "attnlab/autodiff/ops.hpp"

#include "fast_math.hpp"

namespace attn {

// The dropout mask's bit source: element i of a mask with seed s keeps its unit when
// hash(s, i) >= p 2^32, hash = MurmurHash3's 32-bit finaliser of s_lo + i * golden ratio,
// mixed with s_hi (a counter-based stream: any element without drawing the ones before it,
// so the backward recomputes the mask instead of storing it, and the loop vectorises).
struct DropoutMask {
  using UBatch = xsimd::batch<std::uint32_t>;
  std::uint32_t lo, hi, threshold;
  float scale;
  std::uint32_t scale_bits;

  DropoutMask(std::uint64_t seed, float p)
      : lo(static_cast<std::uint32_t>(seed)), hi(static_cast<std::uint32_t>(seed >> 32)),
        threshold(static_cast<std::uint32_t>(std::min(4294967295.0, std::ceil(static_cast<double>(p) * 4294967296.0)))),
        scale(1.0f / (1.0f - p)) {
    std::memcpy(&scale_bits, &scale, sizeof scale);
  }

  // The hash of element indices i (one, or a vector of them).
  template <class U>
  U hash(U i) const {
    U h = (U(lo) + i * U(0x9E3779B9u)) ^ U(hi);
    h ^= h >> 16;
    h *= U(0x85EBCA6Bu);
    h ^= h >> 13;
    h *= U(0xC2B2AE35u);
    return h ^ (h >> 16);
  }
  // m_i / (1 - p): scale or 0, for a vector of indices
  Batch factors(const UBatch& i) const {
    const UBatch keep = xsimd::bitwise_cast(hash(i) >= UBatch(threshold));  // all ones or zero
    return xsimd::bitwise_cast<Batch>(keep & UBatch(scale_bits));
  }
  // The indices first, first + 1, ..., first + lanes - 1 (modulo 2^32, as the mask's indices).
  static UBatch indices_from(std::size_t first) {
    return UBatch(static_cast<std::uint32_t>(first)) + UBatch::load_aligned(lane_numbers_u32);
  }
  // out[i] = in[i] m_(first + i) / (1 - p), or out[i] += that (add): n elements of the mask
  // from element `first` on (in and out may be the same array)
  void apply(const float* in, float* out, std::size_t n, std::size_t first = 0, bool add = false) const {
    UBatch index = indices_from(first);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes, index += UBatch(static_cast<std::uint32_t>(lanes))) {
      Batch v = Batch::load_unaligned(in + i) * factors(index);
      if (add) v += Batch::load_unaligned(out + i);
      v.store_unaligned(out + i);
    }
    for (; i < n; ++i) {
      const float v = hash(static_cast<std::uint32_t>(first + i)) >= threshold ? in[i] * scale : 0.0f;
      out[i] = add ? out[i] + v : v;
    }
  }
};

// A mask indexes its elements with 32 bits: `op` refuses a larger tensor.
inline void require_mask_fits(const Shape& shape, const std::string& op) {
  if (num_elements(shape) > 0xFFFFFFFFu) throw std::invalid_argument(op + ": more than 2^32 elements in " + shape_str(shape));
}

}  // namespace attn
