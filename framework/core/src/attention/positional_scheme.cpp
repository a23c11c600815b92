#include "attnlab/attention/positional_scheme.hpp"

#include <cmath>
#include <stdexcept>

namespace attn {
namespace {

class Rope final : public PositionalScheme {
 public:
  explicit Rope(double base) : base_(base) {}

  Var rotate(const Var& x, std::size_t first) const override {
    const std::size_t rows = x.dim(0), n = x.dim(1), p = x.dim(2), half = p / 2;
    if (p % 2 != 0) throw std::invalid_argument("rope rotates pairs of features: a head's size must be even, got " + std::to_string(p));
    Tensor cos = Tensor::from_shape({n, half, std::size_t(1)}), sin = Tensor::from_shape({n, half, std::size_t(1)});
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t m = 0; m < half; ++m) {
        const double angle = static_cast<double>(first + i) * std::pow(base_, -2.0 * static_cast<double>(m) / static_cast<double>(p));
        cos(i, m, 0) = static_cast<float>(std::cos(angle)), sin(i, m, 0) = static_cast<float>(std::sin(angle));
      }
    const Var pairs = reshape(x, {rows, n, half, std::size_t(2)});
    const Var even = slice(pairs, 3, 0, 1), odd = slice(pairs, 3, 1, 2);  // [B', n, p/2, 1]
    const Var c = constant(std::move(cos)), s = constant(std::move(sin));
    return reshape(concat({even * c - odd * s, even * s + odd * c}, 3), {rows, n, p});
  }

 private:
  double base_;
};

class Alibi final : public PositionalScheme {
 public:
  Var bias(std::size_t heads, std::size_t q0, std::size_t n_q, std::size_t n_k) const override {
    Tensor b = Tensor::from_shape({heads, n_q, n_k});
    for (std::size_t h = 0; h < heads; ++h) {
      const double slope = std::pow(2.0, -8.0 * static_cast<double>(h + 1) / static_cast<double>(heads));
      for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j)
          b(h, i, j) = static_cast<float>(slope * (static_cast<double>(j) - static_cast<double>(q0 + i)));
    }
    return constant(std::move(b));
  }
};

}  // namespace

std::shared_ptr<const PositionalScheme> rope_scheme(double base) { return std::make_shared<Rope>(base); }
std::shared_ptr<const PositionalScheme> alibi_scheme() { return std::make_shared<Alibi>(); }

}  // namespace attn
