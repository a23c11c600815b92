// An attention layer assembled from plugins: a mode forms Q, K, V from the sources, a scoring
// function scores every (query, key) pair, and attention pooling takes the masked softmax and
// the weighted sum of the values. Multi-head attention is the same path with the heads split
// into the batch axis before scoring and merged after pooling (multi_head.hpp):
//   (Q, K, V) = mode(sources)                     [B, n_q, d_q], [B, n_k, d_k], [B, n_k, d_v]
//   multi-head:  Q, K, V = split(Q W_q, K W_k, V W_v)         [B*h, n, p]
//   S = score(Q, K)                               [B', n_q, n_k]
//   A = masked_softmax(S, valid lengths)          [B', n_q, n_k]
//   out = dropout(A) V                            [B', n_q, d_v']
//   multi-head:  out = merge(out) W_o             [B, n_q, hidden], A -> [B, h, n_q, n_k]
#pragma once

#include <memory>
#include <optional>

#include "attnlab/attention/multi_head.hpp"
#include "attnlab/attention/pooling.hpp"
#include "attnlab/plugin_choice.hpp"
#include "attnlab/plugins/plugin_kinds.hpp"

namespace attn {

struct AttentionConfig {
  PluginChoice mode{"qkv", {}, ""};
  PluginChoice scoring{"dot", {}, ""};
  float dropout = 0.0f;                 // on the attention weights, while training
  std::optional<MultiHead> multi_head;  // none: one attention over the mode's Q, K, V
};

// A scoring function with what is needed to check it: its description and its parameters.
struct CheckedScoring {
  std::shared_ptr<ScoringFunction> function;
  std::string who;          // registry.describe(): "scoring function 'x' (plugin /path)"
  std::vector<Var> params;  // the parameters it created
  bool outside = false;     // loaded from a plugin library
  // score(q, k), checked: an exception or scores of the wrong shape become a PluginFault naming
  // the plugin; so do NaN/inf scores of an outside plugin from finite inputs and parameters.
  // (Non-finite scores from built-ins, or from non-finite inputs, are divergence, which the
  // trainer reports as such.)
  Var operator()(const Var& q, const Var& k) const;
};

// Constructs the scoring function `choice` under `scope` and collects what it created.
CheckedScoring make_scoring(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                            std::size_t query_dim, std::size_t key_dim);

class Attention {
 public:
  // Sizes of the three sources the layer will be called with. Parameters: <scope>.mode.*,
  // multi-head <scope>.W_q/W_k/W_v/W_o.*, <scope>.scoring.*.
  Attention(const PluginKinds& kinds, const ParamScope& scope, const AttentionConfig& config,
            std::size_t query_dim, std::size_t key_dim, std::size_t value_dim);

  AttentionResult operator()(const AttentionSources& sources, const ValidLens& lens,
                             const ForwardContext& context = ForwardContext::evaluation()) const;
  std::size_t output_dim() const { return heads_ ? heads_->output_dim() : mode_->value_dim(); }

 private:
  std::shared_ptr<AttentionMode> mode_;
  std::optional<HeadProjections> heads_;  // created after the mode and before the scoring
  CheckedScoring scoring_;
  float dropout_;
};

}  // namespace attn
