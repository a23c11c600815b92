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

CheckedScoring make_scoring(const Registries& registries, const PluginChoice& choice, const ParamScope& scope,
                            std::size_t query_dim, std::size_t key_dim) {
  CheckedScoring s;
  const std::size_t before = scope.store().size();
  s.function = make_plugin(registries.scoring, choice, ScoringArgs{scope, choice.options, query_dim, key_dim});
  s.who = registries.scoring.describe(choice.name);
  s.outside = static_cast<bool>(registries.scoring.get(choice.name).library);
  for (std::size_t i = before; i < scope.store().size(); ++i) s.params.push_back(scope.store().items()[i].second);
  return s;
}

Attention::Attention(const Registries& registries, const ParamScope& scope,
                     const AttentionConfig& config, std::size_t query_dim, std::size_t key_dim,
                     std::size_t value_dim)
    : mode_(make_plugin(registries.modes, config.mode,
                        ModeArgs{scope.child("mode"), config.mode.options, query_dim, key_dim, value_dim})),
      scoring_(make_scoring(registries, config.scoring, scope.child("scoring"), mode_->query_dim(), mode_->key_dim())),
      dropout_(config.dropout) {}

AttentionResult Attention::operator()(const AttentionSources& sources, const ValidLens& lens,
                                      Rng* rng, bool training) const {
  const QKV qkv = mode_->form(sources);
  const Var scores = scoring_(qkv.queries, qkv.keys);  // [B, n_q, n_k]
  const ValidLens mask = mode_->valid_lens(lens, scores.dim(0), scores.dim(1), scores.dim(2));
  return attention_pooling(scores, qkv.values, mask, dropout_, rng, training);
}

}  // namespace attn
