#include "attnlab/gradcheck.hpp"

#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace attn {
namespace {

double projected(const Var& y, const Tensor& r) {
  double total = 0.0;
  for (std::size_t i = 0; i < r.size(); ++i)
    total += static_cast<double>(y.value().data()[i]) * static_cast<double>(r.data()[i]);
  return total;
}

// "(1, 2)": the index of flat entry e of a tensor of `shape`.
std::string entry_index(const Shape& shape, std::size_t e) {
  std::string out;
  for (std::size_t axis = shape.size(); axis-- > 0;) {
    out = std::to_string(e % shape[axis]) + (out.empty() ? "" : ", ") + out;
    e /= shape[axis];
  }
  return "(" + out + ")";
}

struct Ends {
  double down, up;  // L at x - eps and x + eps
};

// L = sum(f() * r) with the entry `x` moved by -eps and +eps (and put back).
Ends ends(const std::function<Var()>& f, const Tensor& r, float& x, double eps) {
  const float saved = x;
  x = static_cast<float>(saved - eps);
  const double down = projected(f(), r);
  x = static_cast<float>(saved + eps);
  const double up = projected(f(), r);
  x = saved;
  return {down, up};
}

// |a - numeric| beyond the tolerance (> 0: a mismatch).
double excess_of(double a, double numeric, const GradCheckOptions& o) {
  return std::abs(a - numeric) - (o.atol + o.rtol * std::max(std::abs(a), std::abs(numeric)));
}

}  // namespace

GradCheckResult gradcheck(const std::function<Var()>& f, const std::vector<Var>& leaves, Rng& rng,
                          const GradCheckOptions& options) {
  NamedVars named;
  for (const Var& leaf : leaves) named.emplace_back("leaf " + std::to_string(named.size()), leaf);
  return gradcheck(f, named, rng, options);
}

GradCheckResult gradcheck(const std::function<Var()>& f, const NamedVars& leaves, Rng& rng,
                          const GradCheckOptions& options) {
  GradCheckResult result;
  for (const auto& named : leaves) named.second.zero_grad();
  const Var y = f();
  Tensor r = Tensor::from_shape(y.shape());
  for (float& v : r) v = rng.normal();
  y.backward(r);

  result.worst_error = -std::numeric_limits<float>::infinity();
  for (std::size_t li = 0; li < leaves.size(); ++li) {
    Var leaf = leaves[li].second;
    const Tensor analytic = leaf.grad();
    Tensor& x = leaf.mutable_value();
    std::vector<std::size_t> entries(x.size());
    std::iota(entries.begin(), entries.end(), std::size_t{0});
    if (options.max_entries_per_leaf && entries.size() > options.max_entries_per_leaf) {
      for (std::size_t i = 0; i < options.max_entries_per_leaf; ++i)
        std::swap(entries[i], entries[i + rng.below(entries.size() - i)]);
      entries.resize(options.max_entries_per_leaf);
    }
    for (std::size_t e : entries) {
      const double a = analytic.data()[e], eps = options.eps;
      const Ends wide = ends(f, r, x.data()[e], eps);
      const double numeric = (wide.up - wide.down) / (2.0 * eps);
      double excess = excess_of(a, numeric, options);
      if (excess > 0.0) {
        // A kink (ReLU, LeakyReLU) inside [x - eps, x + eps] spoils the central difference, but
        // not the one-sided difference on its kink-free side, nor a difference with a 10 times
        // smaller eps that no longer reaches it. For a smooth L they all agree with the central
        // difference, so a wrong backward fails either way.
        const double here = projected(f(), r), small = eps / 10.0;
        const Ends narrow = ends(f, r, x.data()[e], small);
        excess = std::min({excess, excess_of(a, (wide.up - here) / eps, options), excess_of(a, (here - wide.down) / eps, options),
                           excess_of(a, (narrow.up - narrow.down) / (2.0 * small), options),
                           excess_of(a, (narrow.up - here) / small, options), excess_of(a, (here - narrow.down) / small, options)});
      }
      ++result.checked;
      if (excess > result.worst_error) {
        result.worst_error = static_cast<float>(excess);
        std::ostringstream where;
        where << leaves[li].first << " " << shape_str(leaf.shape()) << " entry " << entry_index(leaf.shape(), e)
              << ": analytic " << a << ", numeric " << numeric;
        result.report = where.str();
      }
      if (excess > 0.0) result.ok = false;
    }
  }
  if (result.checked == 0) result.worst_error = 0.0f;
  for (const auto& named : leaves) named.second.zero_grad();
  return result;
}

}  // namespace attn
