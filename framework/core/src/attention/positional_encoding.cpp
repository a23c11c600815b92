#include "attnlab/attention/positional_encoding.hpp"

#include <cmath>
#include <stdexcept>

#include "attnlab/rng.hpp"

namespace attn {

Tensor sinusoidal_table(std::size_t max_len, std::size_t dim) {
  Tensor p = xt::zeros<float>({max_len, dim});
  for (std::size_t i = 0; i < max_len; ++i)
    for (std::size_t j = 0; 2 * j < dim; ++j) {
      const double angle = static_cast<double>(i) / std::pow(10000.0, 2.0 * j / static_cast<double>(dim));
      p(i, 2 * j) = static_cast<float>(std::sin(angle));
      if (2 * j + 1 < dim) p(i, 2 * j + 1) = static_cast<float>(std::cos(angle));
    }
  return p;
}

PositionalEncoding::PositionalEncoding(const ParamScope& scope, const std::string& kind,
                                       std::size_t max_len, std::size_t dim, float dropout)
    : max_len_(max_len), dim_(dim), dropout_(dropout) {
  if (kind == "sinusoidal") {
    scope.keep_table("P", {max_len, dim});  // counted against the run's memory before it exists
    p_ = constant(sinusoidal_table(max_len, dim));
  } else if (kind == "learned") {
    p_ = scope.param("P", {max_len, dim}, Init::normal(0.02f));
  } else {
    throw std::invalid_argument("positional encoding must be 'sinusoidal' or 'learned', got '" + kind + "'");
  }
}

Var PositionalEncoding::table(std::size_t len, std::size_t first) const {
  if (first + len > max_len_)
    throw std::invalid_argument("sequence of length " + std::to_string(first + len) +
                                " is longer than the positional encoding's max_len " + std::to_string(max_len_));
  return slice(p_, 0, first, first + len);
}

Var PositionalEncoding::operator()(const Var& x, const ForwardContext& context, std::size_t first) const {
  if (x.ndim() != 3 || x.dim(2) != dim_)
    throw std::invalid_argument("positional encoding of size " + std::to_string(dim_) +
                                " expects [B, T, " + std::to_string(dim_) + "], got " + shape_str(x.shape()));
  return context.dropout(x + table(x.dim(1), first), dropout_);  // [B, T, d] + [T, d]
}

}  // namespace attn
