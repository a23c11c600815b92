// The heads of multi-head attention (d2l 11.5 / Vaswani et al.):
//   head_i = attention(Q W_q^(i), K W_k^(i), V W_v^(i))      each of size p = hidden / heads
//   output = [head_1, ..., head_h] W_o                       [B, n_q, hidden]
// Implemented d2l's way: one projection W_q [d_q, hidden] (and W_k, W_v) computes all heads at
// once; the heads are then split into the batch axis ([B, n, hidden] -> [B*heads, n, p]) so one
// batched scoring + pooling serves all heads (attention.hpp runs that one path). Any registered
// scoring function works per head (d2l uses scaled_dot); a parametric one shares its parameters
// across heads.
// Grouped-query attention (Ainslie et al. 2023; kv_heads = 1: multi-query, Shazeer 2019): the
// keys and values have kv_heads heads, each shared by heads / kv_heads query heads,
//   head_i = attention(Q W_q^(i), K W_k^(g(i)), V W_v^(g(i))),   g(i) = floor(i kv_heads / heads)
// so W_k and W_v are [d, kv_heads p] and a decoder's key/value cache is heads / kv_heads times
// smaller. The keys and values are shared out to the query heads only where they meet.
#pragma once

#include "attnlab/attention/pooling.hpp"
#include "attnlab/nn/linear.hpp"
#include "attnlab/plugins/attention_mode.hpp"

namespace attn {

struct MultiHead {
  std::size_t heads = 8;
  std::size_t hidden = 256;  // all heads together; a multiple of heads
  bool bias = false;         // biases on W_q, W_k, W_v, W_o
  std::size_t kv_heads = 0;  // heads of the keys and values (grouped-query); 0: as many as heads
  // The projections' initial weights: Xavier-uniform, U(±sqrt(6 / (fan_in + fan_out))); or
  // PyTorch's nn.Linear default for weights, U(±1 / sqrt(fan_in)), as in d2l-neu's models (the
  // biases start at 0 either way).
  bool pytorch_init = false;
};

class HeadProjections {
 public:
  // Sizes of the formed queries, keys and values the projections read.
  HeadProjections(const ParamScope& scope, const MultiHead& config, std::size_t query_dim, std::size_t key_dim,
                  std::size_t value_dim);
  // Q W_q, K W_k, V W_v split into heads: [B, n, d] -> [B*heads, n, p] (keys and values:
  // [B*kv_heads, n, p]).
  FormedQkv split(const FormedQkv& formed) const;
  // Keys or values [B*kv_heads, n, p] shared out to the query heads, [B*heads, n, p] (row
  // b*heads + i is row b*kv_heads + g(i)); themselves when kv_heads = heads.
  Var share(const Var& x) const;
  // The queries' part alone: Q W_q split into heads, [B, n_q, d] -> [B*heads, n_q, p].
  Var split_queries(const Var& queries) const { return split_heads(w_q_(queries), config_.heads); }
  // The heads' pooled output merged and projected, [B*heads, n_q, p] -> [B, n_q, hidden]; the
  // weights stay [B*heads, n_q, n_k], with `heads` set (AttentionResult::weights_by_head).
  AttentionResult merge(const AttentionResult& pooled) const;
  // Valid lengths of [B] or [B, n_q] repeated for every head: [B*heads] or [B*heads, n_q].
  ValidLens repeat(const ValidLens& lens) const;
  std::size_t head_dim() const { return config_.hidden / config_.heads; }
  std::size_t output_dim() const { return config_.hidden; }

 private:
  MultiHead config_;
  Linear w_q_, w_k_, w_v_, w_o_;
};

}  // namespace attn
