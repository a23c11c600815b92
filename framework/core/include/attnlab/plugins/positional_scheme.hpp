// Plugin kind 5: positional schemes — how attention, which sees a set, learns where each vector
// is. A scheme tells it in one or more of three ways, and declares which in traits():
//   add to the input:      X' = X + P[first : first + T]                 (sinusoidal, learned)
//   rotate queries, keys:  q_i' = R(i) q_i,  k_j' = R(j) k_j              (rope; queries and keys
//                          are told apart, so a scheme may scale them differently: xPos)
//   bias the scores:       S_hij += b_h(i, j)                            (alibi, t5_bias)
// `none` does none of them (NoPE: a causal mask alone tells a decoder where it is). A scheme
// is relative when the scores depend on positions only through j - i: shifting every position
// by the same amount leaves them unchanged (the conformance suite checks it when declared).
// The built-ins are plugins/none.cpp, sinusoidal.cpp, learned.cpp, rope.cpp, alibi.cpp and
// t5_bias.cpp; docs/concepts/positions.md has their math, docs/writing-a-positional-plugin.md
// a walkthrough.
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/params.hpp"
#include "attnlab/options.hpp"

namespace attn {

struct PositionalArgs {
  ParamScope params;       // <model scope>.positional: a learned table, a learned bias
  const Options& options;  // the spec's model.positional_options.*
  std::size_t dim;         // the width d of the vectors add_to_input() receives
  std::size_t heads;       // the attention heads: bias() gives one bias per head
  std::size_t head_dim;    // a head's query and key size: what rotate() receives
  std::size_t max_len;     // the most positions the model will be given (a table's length)
  bool causal;             // the self-attention it serves is causal (query i sees keys j <= i)
  float init_std = 0.02f;  // the model's scale for a learned table (vit: its option position_init)
};

// What a scheme does, and so what the framework calls: add_to_input() only when adds_to_input,
// rotate() only when rotates, bias() only when biases_scores.
struct PositionalTraits {
  bool adds_to_input = false;
  bool rotates = false;
  bool biases_scores = false;
  bool relative = false;          // the scores depend on positions only through j - i
  std::size_t max_positions = 0;  // positions 0 .. max_positions - 1 are covered (a table); 0: any
};

enum class Role { queries, keys };

class PositionalScheme {
 public:
  virtual ~PositionalScheme() = default;
  // x [B, T, d] at positions first .. first + T - 1 -> [B, T, d]
  virtual Var add_to_input(const Var& x, std::size_t first) const { return (void)first, x; }
  // One head's queries or keys x [B', n, head_dim] at positions first .. first + n - 1 -> the same shape
  virtual Var rotate(const Var& x, std::size_t first, Role role) const { return (void)first, (void)role, x; }
  // The bias [heads, n_q, n_k] of queries at q0 .. q0 + n_q - 1 over keys at k0 .. k0 + n_k - 1
  virtual Var bias(std::size_t q0, std::size_t n_q, std::size_t k0, std::size_t n_k) const {
    return (void)q0, (void)n_q, (void)k0, (void)n_k, Var();
  }
  virtual PositionalTraits traits() const = 0;
};

}  // namespace attn
