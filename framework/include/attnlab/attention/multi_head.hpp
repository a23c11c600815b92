// Multi-head attention (d2l 11.5 / Vaswani et al.):
//   head_i = attention(Q W_q^(i), K W_k^(i), V W_v^(i))      each of size p = hidden / heads
//   output = [head_1, ..., head_h] W_o                       [B, n_q, hidden]
// Implemented d2l's way: one projection W_q [d_q, hidden] (and W_k, W_v) computes all heads at
// once; the heads are then split into the batch axis ([B, n, hidden] -> [B*heads, n, p]) so one
// batched scoring + pooling serves all heads. Any registered scoring function works per head
// (d2l uses scaled_dot); a parametric one shares its parameters across heads. The mode picks
// the sources (vvv for self-attention, qvv for encoder-decoder attention).
#pragma once

#include <memory>

#include "attnlab/attention/attention.hpp"
#include "attnlab/nn/linear.hpp"

namespace attn {

struct MultiHeadConfig {
  PluginChoice mode{"vvv", {}, ""};
  PluginChoice scoring{"scaled_dot", {}, ""};
  std::size_t heads = 8;
  std::size_t hidden = 256;  // must be a multiple of heads
  float dropout = 0.0f;      // on the attention weights
  bool bias = false;         // biases on W_q, W_k, W_v, W_o
};

class MultiHeadAttention {
 public:
  MultiHeadAttention(const Registries& registries, const ParamScope& scope,
                     const MultiHeadConfig& config, std::size_t query_dim, std::size_t key_dim,
                     std::size_t value_dim);
  // output [B, n_q, hidden], weights [B, heads, n_q, n_k]
  AttentionResult operator()(const AttentionSources& sources, const ValidLens& lens,
                             Rng* rng = nullptr, bool training = false) const;

 private:
  MultiHeadConfig config_;
  std::shared_ptr<AttentionMode> mode_;
  Linear w_q_, w_k_, w_v_, w_o_;
  CheckedScoring scoring_;
};

// Valid lengths of [B] or [B, n_q] repeated for every head: [B*heads] or [B*heads, n_q].
ValidLens repeat_for_heads(const ValidLens& lens, std::size_t heads);

}  // namespace attn
