// Rotary positions' arithmetic, shared by the schemes that turn queries and keys (plugins/rope.cpp,
// the example plugins/examples/xpos.cpp):
//   rotate_pairs:   x'_2m = x_2m cos a_im - x_2m+1 sin a_im,  x'_2m+1 = x_2m sin a_im + x_2m+1 cos a_im
//                   for x [B', n, p] and angles a [n, p/2], row-major in double (row i: the position's
//                   angles; double, so that positions in the thousands keep float32's accuracy)
//   rotary_angles:  a_im = (first + i) base^(-2m/p)      (Su et al. 2021)
// Turning q_i by a_i and k_j by a_j meets in their dot product as one turn by a_j - a_i, which
// for rotary angles is (j - i) base^(-2m/p): the score depends on the offset only.
#pragma once

#include <vector>

#include "attnlab/autodiff/ops.hpp"

namespace attn {

Var rotate_pairs(const Var& x, const std::vector<double>& angles);
std::vector<double> rotary_angles(std::size_t first, std::size_t n, std::size_t p, double base);

}  // namespace attn
