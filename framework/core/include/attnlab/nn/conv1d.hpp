// 1-D convolution over positions with "same" padding, the CNN of d2l 11.6's comparison:
//   y_i = b + sum_{d = -r}^{r} x_{i+d} W_d      x [B, T, in] -> y [B, T, out], width w = 2r + 1,
// x_j = 0 outside [0, T). Written as one product: the w shifted copies of x side by side
// [B, T, w * in] times W [w * in, out] (a Linear), so its backward is matmul's and slice's.
// Parameters: <scope>.W [w * in, out] (row block d + r is W_d), <scope>.b [out].
#pragma once

#include "attnlab/nn/linear.hpp"

namespace attn {

class Conv1d {
 public:
  Conv1d(const ParamScope& scope, std::size_t in, std::size_t out, std::size_t width);  // width odd
  Var operator()(const Var& x) const;  // [B, T, in] -> [B, T, out]

 private:
  std::size_t in_, width_;
  Linear linear_;
};

}  // namespace attn
