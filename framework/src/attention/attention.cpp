#include "attnlab/attention/attention.hpp"

namespace attn {

Attention::Attention(const Registries& registries, const ParamScope& scope,
                     const AttentionConfig& config, std::size_t query_dim, std::size_t key_dim,
                     std::size_t value_dim)
    : mode_(make_plugin(registries.modes, config.mode,
                        ModeArgs{scope.child("mode"), config.mode.options, query_dim, key_dim, value_dim})),
      scoring_(make_plugin(registries.scoring, config.scoring,
                           ScoringArgs{scope.child("scoring"), config.scoring.options,
                                       mode_->query_dim(), mode_->key_dim()})),
      dropout_(config.dropout) {}

AttentionResult Attention::operator()(const AttentionSources& sources, const ValidLens& lens,
                                      Rng* rng, bool training) const {
  const QKV qkv = mode_->form(sources);
  const Var scores = scoring_->score(qkv.queries, qkv.keys);  // [B, n_q, n_k]
  const ValidLens mask = mode_->valid_lens(lens, scores.dim(0), scores.dim(1), scores.dim(2));
  return attention_pooling(scores, qkv.values, mask, dropout_, rng, training);
}

}  // namespace attn
