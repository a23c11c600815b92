// An attention layer assembled from plugins: a mode forms Q, K, V from the sources, a scoring
// function scores every (query, key) pair, a normalizer turns the masked scores into weights
// (softmax by default), and attention pooling takes the weighted sum of the values. Multi-head attention is the same path with the heads split
// into the batch axis before scoring and merged after pooling (multi_head.hpp):
//   (Q, K, V) = mode(sources)                     [B, n_q, d_q], [B, n_k, d_k], [B, n_k, d_v]
//   multi-head:  Q, K, V = split(Q W_q, K W_k, V W_v)         [B*h, n, p]
//   S = score(Q, K) (+ a score bias)              [B', n_q, n_k]
//   A = normalize(S, valid lengths)               [B', n_q, n_k]   (softmax, sigmoid, sparsemax, kernel)
//   out = dropout(A) V                            [B', n_q, d_v']
//   multi-head:  out = merge(out) W_o             [B, n_q, hidden], A -> [B, h, n_q, n_k]
#pragma once

#include <memory>
#include <optional>

#include "attnlab/attention/head_gates.hpp"
#include "attnlab/attention/multi_head.hpp"
#include "attnlab/attention/pooling.hpp"
#include "attnlab/plugins/checked_plugins.hpp"

namespace attn {

struct AttentionConfig {
  PluginChoice mode{"qkv", {}, ""};
  PluginChoice scoring{"dot", {}, ""};
  PluginChoice normalizer{"softmax", {}, ""};
  float dropout = 0.0f;                 // on the attention weights, while training
  std::optional<MultiHead> multi_head;  // none: one attention over the mode's Q, K, V
  // Positions applied where queries meet keys (self-attention): rotated queries and keys, a
  // bias per head (positions.hpp); none: the inputs carry their positions, or none.
  std::shared_ptr<const CheckedPositional> positions;
  // Where the layer sits in its model, for interventions on its heads (head_gates.hpp); no
  // gates: it takes no part. site.heads: the heads a caller split into the batch itself (gat).
  SiteTag site;
};

// Decoding one position at a time: the keys and values formed so far (split into heads for
// multi-head attention), [B', t, p] each. Attention::extend appends the new positions' and
// attends to all of them, so a step costs the same whatever t, but for the t dot products.
struct KeyValueCache {
  Var keys, values;  // (grouped-query attention: [B*kv_heads, t, p], multi_head.hpp)
  // A reordering not applied yet: row i of the cache is row order[i] of keys and values (empty:
  // in order). Beam search reorders the hypotheses after every step; Attention::extend applies
  // the order while it appends the new positions (one copy of the cache per step, not two),
  // over_memory before it reads.
  std::vector<std::size_t> order;

  // Rows `rows` of the B sequences, with their heads (recorded in `order`: nothing is copied).
  KeyValueCache select(const std::vector<std::size_t>& rows, std::size_t batch) const;
  // Keys and values with `order` applied.
  KeyValueCache ordered() const;
  // The memory its keys and values take.
  std::size_t bytes() const { return keys.defined() ? sizeof(float) * (keys.value().size() + values.value().size()) : 0; }
};

// The score bias of a pair that may not attend: low enough that softmax, sigmoid and sparsemax
// give it weight exactly 0 in float32 (exp(-1e9) and sigma(-1e9) are 0), finite so that no
// arithmetic makes a NaN of it.
constexpr float masked_score = -1e9f;

// The score bias of a structure `allowed` [B, n, n] (1 where query i may attend key j: a graph's
// adjacency): 0 there and masked_score elsewhere, as [B, lead + n, lead + n] where the first
// `lead` positions (a <cls>) attend everywhere and are attended from everywhere.
Var structure_bias(const IntTensor& allowed, std::size_t lead = 0);

class Attention {
 public:
  // Sizes of the three sources the layer will be called with. Parameters: <scope>.mode.*,
  // multi-head <scope>.W_q/W_k/W_v/W_o.*, <scope>.scoring.*, <scope>.normalizer.*.
  Attention(const PluginKinds& kinds, const ParamScope& scope, const AttentionConfig& config,
            std::size_t query_dim, std::size_t key_dim, std::size_t value_dim);

  // `score_bias` [B, n_q, n_k] (the same for every head), when given, is added to the scores
  // before they are normalized: a structure of the input that is not a valid length. A graph's
  // adjacency is one: bias 0 on an edge, masked_score off it (gat.cpp).
  AttentionResult operator()(const AttentionSources& sources, const ValidLens& lens,
                             const ForwardContext& context = ForwardContext::evaluation(),
                             const Var& score_bias = {}) const;
  // The newest positions of a self-attention (sources [B, n, d], evaluation): their keys and
  // values are appended to `cache`; queries attend to every cached position under the mode's
  // mask for those query positions (a causal mode's: all of them). Equals operator() on the
  // whole sequence, row for row, for the last n queries.
  AttentionResult extend(const AttentionSources& sources, KeyValueCache& cache) const;
  // Decoding's attention over a memory that stays the same at every step (the encoder's
  // outputs): its keys and values are formed on the first call and kept in `cache`; later
  // calls form the queries only (evaluation).
  AttentionResult over_memory(const AttentionSources& sources, const ValidLens& lens, KeyValueCache& cache) const;
  std::size_t output_dim() const { return heads_ ? heads_->output_dim() : mode_.value_dim(); }
  // The mode forms its keys from the queries' own sequence (vvv), not from the key source.
  bool self_attention() const { return mode_.traits().self_attention; }

 private:
  // Scores, mask, weights and pooling of formed (and split) queries, keys and values.
  // (score_bias [B', n_q, n_k]: per row of heads)
  AttentionResult attend(const FormedQkv& qkv, const ValidLens& mask, const ForwardContext& context,
                         const Var& score_bias = {}) const;
  Var with_positions(FormedQkv& qkv, std::size_t q0, std::size_t k0, const Var& bias) const;

  CheckedMode mode_;
  std::optional<HeadProjections> heads_;  // created after the mode and before the scoring
  std::shared_ptr<const CheckedPositional> positions_;
  CheckedScoring scoring_;
  CheckedNormalizer normalizer_;
  float dropout_;
  HeadGates* gates_ = nullptr;  // the model's, when the layer is a site
  std::size_t site_ = 0;
};

}  // namespace attn
