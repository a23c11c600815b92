// Reductions. A sum's gradient is its output gradient broadcast back over the summed axes.
#include <algorithm>
#include <stdexcept>

#include <xsimd/xsimd.hpp>

#include "attnlab/autodiff/ops.hpp"

namespace attn {
namespace {

// Sum of n floats: SIMD float partial sums over blocks of 4096, blocks added in double
// (fast, and as accurate as a double loop for the sizes attnlab sees).
double total_of(const float* x, std::size_t n) {
  using Batch = xsimd::batch<float>;
  constexpr std::size_t lanes = Batch::size, block = 4096;
  double total = 0.0;
  std::size_t i = 0;
  for (; i + block <= n; i += block) {
    Batch a(0.0f), b(0.0f);
    for (std::size_t j = i; j < i + block; j += 2 * lanes) {
      a += Batch::load_unaligned(x + j);
      b += Batch::load_unaligned(x + j + lanes);
    }
    total += static_cast<double>(xsimd::hadd(a + b));
  }
  for (; i < n; ++i) total += static_cast<double>(x[i]);
  return total;
}

// dy reshaped with size-1 axes where x was reduced, then broadcast to x's shape (times s).
void spread_back(Node& n, const std::vector<std::size_t>& axes, float s) {
  Shape kept = n.parents[0]->shape();
  for (std::size_t a : axes) kept[a] = 1;
  Tensor g = n.grad;
  g.reshape(kept);
  n.parents[0]->grad_buffer() += s * g;  // xtensor broadcasts g over the reduced axes
}

std::vector<std::size_t> checked_axes(const Var& x, std::vector<std::size_t> axes) {
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (!axes.empty() && axes.back() >= x.ndim())
    throw std::invalid_argument("sum/mean: axis " + std::to_string(axes.back()) +
                                " out of range for shape " + shape_str(x.shape()));
  return axes;
}

std::size_t count_over(const Var& x, const std::vector<std::size_t>& axes) {
  std::size_t c = 1;
  for (std::size_t a : axes) c *= x.dim(a);
  return c;
}

}  // namespace

// y = sum_i x_i;  dx += dy
Var sum(const Var& x) {
  const double total = total_of(x.value().data(), x.value().size());
  return graph_node(Tensor(static_cast<float>(total)), {x}, [](Node& n) {
    n.parents[0]->grad_buffer() += n.grad.data()[0];
  }, reads_parents({}));
}

// y = sum over `axes` of x;  dx += dy broadcast over those axes
Var sum(const Var& x, const std::vector<std::size_t>& axes_in, bool keepdims) {
  const auto axes = checked_axes(x, axes_in);
  Tensor y = x.value();
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) y = sum_axis(y, *it, keepdims);
  return graph_node(std::move(y), {x}, [axes](Node& n) { spread_back(n, axes, 1.0f); }, reads_parents({}));
}

// y = mean_i x_i;  dx += dy / N
Var mean(const Var& x) {
  return scale(sum(x), 1.0f / static_cast<float>(std::max<std::size_t>(x.value().size(), 1)));
}

// y = mean over `axes` of x;  dx += dy / N broadcast over those axes
Var mean(const Var& x, const std::vector<std::size_t>& axes, bool keepdims) {
  return scale(sum(x, axes, keepdims),
               1.0f / static_cast<float>(std::max<std::size_t>(count_over(x, checked_axes(x, axes)), 1)));
}

}  // namespace attn
