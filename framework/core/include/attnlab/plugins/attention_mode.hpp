// Plugin kind 3: attention modes — how queries, keys and values are formed from a model's
// sources. A model hands every attention layer the same three sources (what it would query
// with, what it could attend to, what it could read out); the mode decides what is used:
//   qkv: Q = query, K = key, V = value        (three distinct sources, e.g. Nadaraya-Watson)
//   qvv: Q = query, K = V = key (the memory)  (e.g. Bahdanau: decoder state over encoder outputs)
//   vvv: Q = K = V = query                    (self-attention; optionally causal)
// each optionally through learned projections.
#pragma once

#include <cstddef>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/params.hpp"
#include "attnlab/options.hpp"

namespace attn {

struct ModeArgs {
  ParamScope params;
  const Options& options;
  std::size_t query_dim;  // feature sizes of the three sources
  std::size_t key_dim;
  std::size_t value_dim;
};

struct AttentionSources {
  Var query;  // [B, n_q, query_dim]
  Var key;    // [B, n_k, key_dim]
  Var value;  // [B, n_k, value_dim]
};

// What a mode declares about itself (the framework checks it at every form()).
struct ModeTraits {
  // Keys and values are formed from the query source alone (self-attention, as vvv): the layer
  // attends to its own queries' sequence and never reads the key and value sources. A model
  // then labels the map's keys with the queries' positions and measures no alignment to a
  // source (docs/concepts/measuring-attention.md). False: the keys are the key source's positions.
  bool self_attention = false;
};

struct FormedQkv {
  Var queries;  // [B, n_q, d_q']
  Var keys;     // [B, n_k, d_k']
  Var values;   // [B, n_k, d_v']
};
// API 1's name, kept for API 13 only (docs/plugin-api-changes.md).
using QKV [[deprecated("QKV is FormedQkv since plugin API 2")]] = FormedQkv;

class AttentionMode {
 public:
  virtual ~AttentionMode() = default;
  virtual FormedQkv form(const AttentionSources& sources) = 0;
  // Feature sizes of the formed queries, keys and values (after any projection).
  virtual std::size_t query_dim() const = 0;
  virtual std::size_t key_dim() const = 0;
  virtual std::size_t value_dim() const = 0;
  // Valid lengths to mask with, given the caller's (none, [B] or [B, n_q]): a causal mode
  // returns per-query lengths [B, n_q]; a windowed one key ranges [B, n_q, 2] (first, end).
  virtual ValidLens valid_lens(const ValidLens& lens, std::size_t batch, std::size_t n_q,
                               std::size_t n_k) const {
    (void)batch, (void)n_q, (void)n_k;
    return lens;
  }
  virtual ModeTraits traits() const { return {}; }
};

}  // namespace attn
