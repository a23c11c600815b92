// Positions that act inside attention, where queries meet keys (positional_encoding.hpp adds
// them to the input instead):
//   rope   (Su et al. 2021) rotates each pair (2m, 2m+1) of a head's query and key features at
//          position i by the angle i * base^(-2m/p) (p: the head's size), so that
//          q_i . k_j depends on the offset j - i only:
//            x'_2m = x_2m cos(i w_m) - x_2m+1 sin(i w_m),  x'_2m+1 = x_2m sin(i w_m) + x_2m+1 cos(i w_m)
//   alibi  (Press et al. 2022) adds to the score of query i over key j the bias
//          s_h (j - i),  s_h = 2^(-8 (h + 1) / H)  for head h of H: a penalty growing with distance
//   t5_bias (Raffel et al. 2020) adds a learned bias b[bucket(i - j), h] per head; causal
//          buckets of the distance d = max(i - j, 0): d itself below B/2, then log-spaced up to
//          max_distance, and the last bucket beyond (B buckets; T5's decoder)
// None has a table of positions: they work at any position, and a model that uses them has no
// max_len (t5_bias's last bucket covers every distance past max_distance).
#pragma once

#include <memory>
#include <string>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/params.hpp"

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
// T5's relative bias: the parameter <scope>.bias [buckets, heads], initialised at 0.
std::shared_ptr<const PositionalScheme> t5_bias_scheme(const ParamScope& scope, std::size_t heads, std::size_t buckets,
                                                       std::size_t max_distance);
// T5's causal bucket of a distance d >= 0 (exposed for its test).
std::size_t t5_bucket(std::size_t distance, std::size_t buckets, std::size_t max_distance);

}  // namespace attn
