#include "attnlab/attention/positional_scheme.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace attn {
namespace {

class Rope final : public PositionalScheme {
 public:
  explicit Rope(double base) : base_(base) {}

  Var rotate(const Var& x, std::size_t first) const override {
    const std::size_t rows = x.dim(0), n = x.dim(1), p = x.dim(2), half = p / 2;
    if (p % 2 != 0) throw std::invalid_argument("rope rotates pairs of features: a head's size must be even, got " + std::to_string(p));
    std::vector<double> frequency(half);  // w_m = base^(-2m/p)
    for (std::size_t m = 0; m < half; ++m) frequency[m] = std::pow(base_, -2.0 * static_cast<double>(m) / static_cast<double>(p));
    Tensor cos = Tensor::from_shape({n, half, std::size_t(1)}), sin = Tensor::from_shape({n, half, std::size_t(1)});
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t m = 0; m < half; ++m) {
        const double angle = static_cast<double>(first + i) * frequency[m];
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

class T5Bias final : public PositionalScheme {
 public:
  T5Bias(const ParamScope& scope, std::size_t heads, std::size_t buckets, std::size_t max_distance)
      : table_(scope.param("bias", {buckets, heads}, Init::zeros())), heads_(heads), buckets_(buckets), max_distance_(max_distance) {}

  Var bias(std::size_t heads, std::size_t q0, std::size_t n_q, std::size_t n_k) const override {
    if (heads != heads_)
      throw std::invalid_argument("t5_bias was made for " + std::to_string(heads_) + " heads, not " + std::to_string(heads));
    IntTensor bucket = IntTensor::from_shape({n_q * n_k});
    for (std::size_t i = 0; i < n_q; ++i)
      for (std::size_t j = 0; j < n_k; ++j) {
        const std::size_t at = q0 + i;
        bucket(i * n_k + j) = static_cast<int>(t5_bucket(at > j ? at - j : 0, buckets_, max_distance_));
      }
    const Var rows = index_select(table_, 0, bucket);                      // [n_q * n_k, heads]
    return reshape(transpose(rows, 0, 1), {heads, n_q, n_k});             // [heads, n_q, n_k]
  }

 private:
  Var table_;  // [buckets, heads]
  std::size_t heads_, buckets_, max_distance_;
};

}  // namespace

std::size_t t5_bucket(std::size_t distance, std::size_t buckets, std::size_t max_distance) {
  const std::size_t exact = buckets / 2;
  if (distance < exact) return distance;
  const double spread = std::log(static_cast<double>(distance) / static_cast<double>(exact)) /
                        std::log(static_cast<double>(max_distance) / static_cast<double>(exact));
  const auto bucket = exact + static_cast<std::size_t>(spread * static_cast<double>(buckets - exact));  // (truncated, as T5)
  return std::min(bucket, buckets - 1);
}

std::shared_ptr<const PositionalScheme> t5_bias_scheme(const ParamScope& scope, std::size_t heads, std::size_t buckets,
                                                       std::size_t max_distance) {
  return std::make_shared<T5Bias>(scope, heads, buckets, max_distance);
}

std::shared_ptr<const PositionalScheme> rope_scheme(double base) { return std::make_shared<Rope>(base); }
std::shared_ptr<const PositionalScheme> alibi_scheme() { return std::make_shared<Alibi>(); }

}  // namespace attn
