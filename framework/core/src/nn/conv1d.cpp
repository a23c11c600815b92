#include "attnlab/nn/conv1d.hpp"

#include <stdexcept>

namespace attn {
namespace {

// x [B, T, D] shifted by d along T: row i holds x_{i+d}, zeros where i + d is outside [0, T).
Var shifted(const Var& x, long d) {
  const std::size_t batch = x.dim(0), steps = x.dim(1), dim = x.dim(2);
  const std::size_t gap = static_cast<std::size_t>(d < 0 ? -d : d);
  if (d == 0) return x;
  if (gap >= steps) return constant(xt::zeros<float>({batch, steps, dim}));
  const Var zeros = constant(xt::zeros<float>({batch, gap, dim}));
  return d > 0 ? concat({slice(x, 1, gap, steps), zeros}, 1) : concat({zeros, slice(x, 1, 0, steps - gap)}, 1);
}

}  // namespace

Conv1d::Conv1d(const ParamScope& scope, std::size_t in, std::size_t out, std::size_t width)
    : in_(in), width_(width), linear_(scope, width * in, out) {
  if (width % 2 == 0) throw std::invalid_argument("Conv1d: the width must be odd (same padding), got " + std::to_string(width));
}

Var Conv1d::operator()(const Var& x) const {
  if (x.ndim() != 3 || x.dim(2) != in_)
    throw std::invalid_argument("Conv1d: expected x [B, T, " + std::to_string(in_) + "], got " + shape_str(x.shape()));
  const long r = static_cast<long>(width_ / 2);
  std::vector<Var> copies;  // x_{i-r}, ..., x_{i+r} side by side
  for (long d = -r; d <= r; ++d) copies.push_back(shifted(x, d));
  return linear_(concat(copies, 2));
}

}  // namespace attn
