#include "attnlab/attention/attention.hpp"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

bool finite(const Tensor& t) {
  for (float v : t)
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace

Var CheckedScoring::operator()(const Var& q, const Var& k) const {
  Var scores;
  try {
    scores = function->score(q, k);
  } catch (const std::exception& e) {
    throw PluginFault(who + " threw in score(): " + e.what());
  }
  const Shape expected{q.dim(0), q.dim(1), k.dim(1)};
  if (!scores.defined() || scores.shape() != expected)
    throw PluginFault(who + " returned scores of shape " + (scores.defined() ? shape_str(scores.shape()) : "(none)") +
                      " for queries " + shape_str(q.shape()) + " and keys " + shape_str(k.shape()) +
                      "; expected " + shape_str(expected) + " = [B, n_q, n_k]");
  if (outside && !finite(scores.value()) && finite(q.value()) && finite(k.value()) &&
      std::all_of(params.begin(), params.end(), [](const Var& p) { return finite(p.value()); }))
    throw PluginFault(who + " returned NaN or infinite scores from finite queries and keys");
  return scores;
}

CheckedScoring make_scoring(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                            std::size_t query_dim, std::size_t key_dim) {
  CheckedScoring s;
  const std::size_t before = scope.store().size();
  s.function = make_plugin(kinds.scoring, choice, ScoringArgs{scope, choice.options, query_dim, key_dim});
  s.who = kinds.scoring.describe(choice.name);
  s.outside = static_cast<bool>(kinds.scoring.get(choice.name).library);
  for (std::size_t i = before; i < scope.store().size(); ++i) s.params.push_back(scope.store().items()[i].second);
  return s;
}

namespace {

std::optional<HeadProjections> head_projections(const ParamScope& scope, const AttentionConfig& config,
                                                const AttentionMode& mode) {
  if (!config.multi_head) return std::nullopt;
  return HeadProjections(scope, *config.multi_head, mode.query_dim(), mode.key_dim(), mode.value_dim());
}

}  // namespace

Attention::Attention(const PluginKinds& kinds, const ParamScope& scope, const AttentionConfig& config,
                     std::size_t query_dim, std::size_t key_dim, std::size_t value_dim)
    : mode_(make_plugin(kinds.modes, config.mode,
                        ModeArgs{scope.child("mode"), config.mode.options, query_dim, key_dim, value_dim})),
      heads_(head_projections(scope, config, *mode_)),
      scoring_(make_scoring(kinds, config.scoring, scope.child("scoring"),
                            heads_ ? heads_->head_dim() : mode_->query_dim(),
                            heads_ ? heads_->head_dim() : mode_->key_dim())),
      dropout_(config.dropout) {}

AttentionResult Attention::operator()(const AttentionSources& sources, const ValidLens& lens,
                                      const ForwardContext& context) const {
  const FormedQkv formed = mode_->form(sources);                       // [B, n, d]
  const FormedQkv qkv = heads_ ? heads_->split(formed) : formed;       // [B*h, n, p] for multi-head
  const Var scores = scoring_(qkv.queries, qkv.keys);                  // [B', n_q, n_k]
  const std::size_t batch = sources.query.dim(0);
  const ValidLens mask = mode_->valid_lens(lens, batch, scores.dim(1), scores.dim(2));
  const AttentionResult pooled =
      attention_pooling(scores, qkv.values, heads_ ? heads_->repeat(mask) : mask, dropout_, context);
  return heads_ ? heads_->merge(pooled, batch) : pooled;
}

}  // namespace attn
