#include "attnlab/attention/attention.hpp"

namespace attn {
namespace {

std::optional<HeadProjections> head_projections(const ParamScope& scope, const AttentionConfig& config,
                                                const CheckedMode& mode) {
  if (!config.multi_head) return std::nullopt;
  return HeadProjections(scope, *config.multi_head, mode.query_dim(), mode.key_dim(), mode.value_dim());
}

}  // namespace

Attention::Attention(const PluginKinds& kinds, const ParamScope& scope, const AttentionConfig& config,
                     std::size_t query_dim, std::size_t key_dim, std::size_t value_dim)
    : mode_(make_mode(kinds, config.mode, scope.child("mode"), query_dim, key_dim, value_dim)),
      heads_(head_projections(scope, config, mode_)),
      scoring_(make_scoring(kinds, config.scoring, scope.child("scoring"),
                            heads_ ? heads_->head_dim() : mode_.query_dim(),
                            heads_ ? heads_->head_dim() : mode_.key_dim())),
      normalizer_(make_normalizer(kinds, config.normalizer, scope.child("normalizer"))),
      dropout_(config.dropout) {}

AttentionResult Attention::operator()(const AttentionSources& sources, const ValidLens& lens,
                                      const ForwardContext& context) const {
  const FormedQkv formed = mode_.form(sources);                       // [B, n, d]
  const FormedQkv qkv = heads_ ? heads_->split(formed) : formed;       // [B*h, n, p] for multi-head
  const Var scores = scoring_(qkv.queries, qkv.keys);                  // [B', n_q, n_k]
  const std::size_t batch = sources.query.dim(0);
  const ValidLens mask = mode_.valid_lens(lens, batch, scores.dim(1), scores.dim(2));
  const Var weights = normalizer_(scores, heads_ ? heads_->repeat(mask) : mask);  // [B', n_q, n_k]
  const AttentionResult pooled = attention_pooling(weights, qkv.values, dropout_, context);
  return heads_ ? heads_->merge(pooled, batch) : pooled;
}

}  // namespace attn
