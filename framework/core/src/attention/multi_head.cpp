#include "attnlab/attention/multi_head.hpp"

#include <stdexcept>

namespace attn {
namespace {

const MultiHead& checked(const MultiHead& c) {
  if (c.heads == 0 || c.hidden % c.heads != 0)
    throw std::invalid_argument("multi-head attention: hidden size " + std::to_string(c.hidden) +
                                " must be a positive multiple of the number of heads " + std::to_string(c.heads));
  return c;
}

}  // namespace

HeadProjections::HeadProjections(const ParamScope& scope, const MultiHead& config, std::size_t query_dim,
                                 std::size_t key_dim, std::size_t value_dim)
    : config_(checked(config)),
      w_q_(scope.child("W_q"), query_dim, config.hidden, config.bias),
      w_k_(scope.child("W_k"), key_dim, config.hidden, config.bias),
      w_v_(scope.child("W_v"), value_dim, config.hidden, config.bias),
      w_o_(scope.child("W_o"), config.hidden, config.hidden, config.bias) {}

FormedQkv HeadProjections::split(const FormedQkv& formed) const {
  return {split_heads(w_q_(formed.queries), config_.heads),   // [B*h, n_q, p]
          split_heads(w_k_(formed.keys), config_.heads),      // [B*h, n_k, p]
          split_heads(w_v_(formed.values), config_.heads)};   // [B*h, n_k, p]
}

AttentionResult HeadProjections::merge(const AttentionResult& pooled, std::size_t batch) const {
  const std::size_t nq = pooled.weights.dim(1), nk = pooled.weights.dim(2);
  return {w_o_(merge_heads(pooled.output, config_.heads)),                 // [B, n_q, hidden]
          reshape(pooled.weights, {batch, config_.heads, nq, nk})};        // [B, h, n_q, n_k]
}

ValidLens HeadProjections::repeat(const ValidLens& lens) const {
  if (!lens) return lens;
  Shape shape(lens->shape().begin(), lens->shape().end());
  const std::size_t per_item = lens->size() / shape[0];
  shape[0] *= config_.heads;
  IntTensor out = IntTensor::from_shape(shape);
  for (std::size_t b = 0; b < lens->shape()[0]; ++b)
    for (std::size_t h = 0; h < config_.heads; ++h)
      std::copy_n(lens->data() + b * per_item, per_item, out.data() + (b * config_.heads + h) * per_item);
  return out;
}

}  // namespace attn
