// One row of a masked softmax, forward and backward, and the valid keys of every row: shared by
// masked_softmax (ops_softmax.cpp) and the fused attention (ops_attention.cpp), so both compute
// the same floats.
#pragma once
#include <cstddef>
#include <limits>
#include <vector>

#include "attnlab/autodiff/ops.hpp"
#include "fast_math.hpp"

namespace attn {

// The valid keys [begin, end) of one row.
struct KeyRange {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end > begin ? end - begin : 0; }
};

// The valid keys of every row of x [..., n] under `mask` (see ops.hpp): [0, len) for lengths
// [B] or [B, n_q], [first, end) for key ranges [..., 2], all of [0, n) without a mask. Throws
// std::invalid_argument, naming `op`, when the mask's shape fits neither.
std::vector<KeyRange> row_ranges(const Shape& x, const IntTensor* mask, const char* op = "masked_softmax");
// The mask of optional lengths, or nullptr.
const IntTensor* lens_of(const ValidLens& lens);

// y_j = exp(x_j - max) / sum_{i in valid} exp(x_i - max) for j in `valid`, y_j = 0 elsewhere (a
// row without valid keys is all zeros). y may be x (in place).
void softmax_row(const float* x, float* y, std::size_t n, KeyRange valid);

// softmax_row of a row of at most `lanes` scores held in one vector (lane j: key j): lanes
// outside `valid`, and a row without valid keys, give 0. The same floats as softmax_row, which
// calls it for such rows; the fused attention's short rows (short_attention.hpp) never leave
// registers.
inline Batch softmax_lanes(const Batch& x, KeyRange valid) {
  if (valid.size() == 0) return Batch(0.0f);
  const Batch lane = lane_indices();
  const auto in = (lane >= Batch(static_cast<float>(valid.begin))) & (lane < Batch(static_cast<float>(valid.end)));
  const Batch s = xsimd::select(in, x, Batch(-std::numeric_limits<float>::infinity()));
  const Batch e = xsimd::exp(s - Batch(lane_max(s)));  // 0 outside `valid`
  return e * Batch(1.0f / xsimd::hadd(e));
}

// dx = y * (dy - sum(dy * y)) over a row of n (beta 0: written), or dx += that (beta 1). dx may
// be dy (in place, beta 0).
void softmax_row_backward(const float* y, const float* dy, float* dx, std::size_t n, float beta);

}  // namespace attn
