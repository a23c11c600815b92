#include "attnlab/attention/multi_head.hpp"

#include <stdexcept>

namespace attn {
namespace {

const MultiHeadConfig& checked(const MultiHeadConfig& c) {
  if (c.heads == 0 || c.hidden % c.heads != 0)
    throw std::invalid_argument("multi-head attention: hidden size " + std::to_string(c.hidden) +
                                " must be a positive multiple of the number of heads " +
                                std::to_string(c.heads));
  return c;
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(const Registries& registries, const ParamScope& scope,
                                       const MultiHeadConfig& config, std::size_t query_dim,
                                       std::size_t key_dim, std::size_t value_dim)
    : config_(checked(config)),
      mode_(make_plugin(registries.modes, config.mode,
                        ModeArgs{scope.child("mode"), config.mode.options, query_dim, key_dim, value_dim})),
      w_q_(scope.child("W_q"), mode_->query_dim(), config.hidden, config.bias),
      w_k_(scope.child("W_k"), mode_->key_dim(), config.hidden, config.bias),
      w_v_(scope.child("W_v"), mode_->value_dim(), config.hidden, config.bias),
      w_o_(scope.child("W_o"), config.hidden, config.hidden, config.bias),
      scoring_(make_scoring(registries, config.scoring, scope.child("scoring"), config.hidden / config.heads,
                            config.hidden / config.heads)) {}

AttentionResult MultiHeadAttention::operator()(const AttentionSources& sources,
                                               const ValidLens& lens, Rng* rng,
                                               bool training) const {
  const QKV qkv = mode_->form(sources);
  const Var q = split_heads(w_q_(qkv.queries), config_.heads);  // [B*h, n_q, p]
  const Var k = split_heads(w_k_(qkv.keys), config_.heads);     // [B*h, n_k, p]
  const Var v = split_heads(w_v_(qkv.values), config_.heads);   // [B*h, n_k, p]
  const Var scores = scoring_(q, k);           // [B*h, n_q, n_k]
  const std::size_t batch = sources.query.dim(0), nq = scores.dim(1), nk = scores.dim(2);
  const ValidLens mask = repeat_for_heads(mode_->valid_lens(lens, batch, nq, nk), config_.heads);
  const AttentionResult pooled = attention_pooling(scores, v, mask, config_.dropout, rng, training);
  return {w_o_(merge_heads(pooled.output, config_.heads)),                                 // [B, n_q, hidden]
          reshape(pooled.weights, {batch, config_.heads, nq, nk})};        // [B, h, n_q, n_k]
}

ValidLens repeat_for_heads(const ValidLens& lens, std::size_t heads) {
  if (!lens) return lens;
  Shape shape(lens->shape().begin(), lens->shape().end());
  const std::size_t per_item = lens->size() / shape[0];
  shape[0] *= heads;
  IntTensor out = IntTensor::from_shape(shape);
  for (std::size_t b = 0; b < lens->shape()[0]; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      std::copy_n(lens->data() + b * per_item, per_item, out.data() + (b * heads + h) * per_item);
  return out;
}

}  // namespace attn
