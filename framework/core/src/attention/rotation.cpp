#include "attnlab/attention/rotation.hpp"

#include <cmath>
#include <stdexcept>

namespace attn {

Var rotate_pairs(const Var& x, const std::vector<double>& angles) {
  const std::size_t rows = x.dim(0), n = x.dim(1), p = x.dim(2), half = p / 2;
  if (p % 2 != 0 || angles.size() != n * half)
    throw std::invalid_argument("rotate_pairs: features " + shape_str(x.shape()) + " need an even size and " +
                                std::to_string(n * half) + " angles [n, p/2]; got " + std::to_string(angles.size()));
  Tensor cos = Tensor::from_shape({n, half, std::size_t(1)}), sin = Tensor::from_shape({n, half, std::size_t(1)});
  for (std::size_t e = 0; e < n * half; ++e)
    cos.data()[e] = static_cast<float>(std::cos(angles[e])), sin.data()[e] = static_cast<float>(std::sin(angles[e]));
  const Var pairs = reshape(x, {rows, n, half, std::size_t(2)});
  const Var even = slice(pairs, 3, 0, 1), odd = slice(pairs, 3, 1, 2);  // [B', n, p/2, 1]
  const Var c = constant(std::move(cos)), s = constant(std::move(sin));
  return reshape(concat({even * c - odd * s, even * s + odd * c}, 3), {rows, n, p});
}

std::vector<double> rotary_angles(std::size_t first, std::size_t n, std::size_t p, double base) {
  const std::size_t half = p / 2;
  std::vector<double> angles(n * half);
  for (std::size_t m = 0; m < half; ++m) {
    const double frequency = std::pow(base, -2.0 * static_cast<double>(m) / static_cast<double>(p));
    for (std::size_t i = 0; i < n; ++i) angles[i * half + m] = static_cast<double>(first + i) * frequency;
  }
  return angles;
}

}  // namespace attn
