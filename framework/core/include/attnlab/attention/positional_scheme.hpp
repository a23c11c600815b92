// Positions that act inside attention, where queries meet keys (positional_encoding.hpp adds
// them to the input instead):
//   rope   (Su et al. 2021) rotates each pair (2m, 2m+1) of a head's query and key features at
//          position i by the angle i * base^(-2m/p) (p: the head's size), so that
//          q_i . k_j depends on the offset j - i only:
//            x'_2m = x_2m cos(i w_m) - x_2m+1 sin(i w_m),  x'_2m+1 = x_2m sin(i w_m) + x_2m+1 cos(i w_m)
//   alibi  (Press et al. 2022) adds to the score of query i over key j the bias
//          s_h (j - i),  s_h = 2^(-8 (h + 1) / H)  for head h of H: a penalty growing with distance
// Both have no table: they work at any position, and a model that uses them has no max_len.
#pragma once

#include <memory>
#include <string>

#include "attnlab/autodiff/ops.hpp"

namespace attn {

class PositionalScheme {
 public:
  virtual ~PositionalScheme() = default;
  // One head's queries or keys [B', n, p] at positions first .. first + n - 1, rotated (rope);
  // the default leaves them as they are.
  virtual Var rotate(const Var& x, std::size_t first) const {
    (void)first;
    return x;
  }
  // A bias [heads, n_q, n_k] for the scores of queries at positions q0 .. q0 + n_q - 1 over keys
  // at 0 .. n_k - 1 (alibi); undefined: none.
  virtual Var bias(std::size_t heads, std::size_t q0, std::size_t n_q, std::size_t n_k) const {
    (void)heads, (void)q0, (void)n_q, (void)n_k;
    return {};
  }
};

// RoPE with the given base (10000 in the paper and d2l-neu).
std::shared_ptr<const PositionalScheme> rope_scheme(double base);
// ALiBi's slopes 2^(-8 (h + 1) / H).
std::shared_ptr<const PositionalScheme> alibi_scheme();

}  // namespace attn
