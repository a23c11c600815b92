// Positional encoding: adds position information to a sequence X [B, T, d], then dropout.
//   sinusoidal (d2l 11.6): P[i, 2j] = sin(i / 10000^(2j/d)),  P[i, 2j+1] = cos(i / 10000^(2j/d))
//   learned:               P [max_len, d] is a parameter (<scope>.P), initialised N(0, 0.02^2)
// output = dropout(X + P[first : first + T])   (first > 0: decoding one position at a time)
#pragma once

#include <string>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/forward_context.hpp"
#include "attnlab/nn/params.hpp"

namespace attn {

class PositionalEncoding {
 public:
  PositionalEncoding(const ParamScope& scope, const std::string& kind, std::size_t max_len,
                     std::size_t dim, float dropout = 0.0f);
  Var operator()(const Var& x, const ForwardContext& context = ForwardContext::evaluation(),
                 std::size_t first = 0) const;  // [B, T, d], positions [first, first + T)
  // The encoding of positions [first, first + len): [len, d].
  Var table(std::size_t len, std::size_t first = 0) const;

 private:
  std::size_t max_len_, dim_;
  float dropout_;
  Var p_;  // [max_len, d]: a constant (sinusoidal) or a parameter (learned)
};

// d2l's sinusoidal table [max_len, dim].
Tensor sinusoidal_table(std::size_t max_len, std::size_t dim);

}  // namespace attn
