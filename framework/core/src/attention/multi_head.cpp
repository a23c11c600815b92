#include "attnlab/attention/multi_head.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace attn {
namespace {

MultiHead checked(MultiHead c) {
  if (c.heads == 0 || c.hidden % c.heads != 0)
    throw std::invalid_argument("multi-head attention: hidden size " + std::to_string(c.hidden) +
                                " must be a positive multiple of the number of heads " + std::to_string(c.heads));
  if (c.kv_heads == 0) c.kv_heads = c.heads;
  if (c.heads % c.kv_heads != 0)
    throw std::invalid_argument("grouped-query attention: kv_heads (" + std::to_string(c.kv_heads) + ") must divide heads (" +
                                std::to_string(c.heads) + "), each key/value head serving as many query heads");
  return c;
}

// A projection's initial weights (MultiHead::pytorch_init), for an input of fan_in features.
Init projection_init(const MultiHead& c, std::size_t fan_in) {
  return c.pytorch_init ? Init::uniform(1.0f / std::sqrt(static_cast<float>(fan_in))) : Init::xavier_uniform();
}

// x [W_1 | W_2 | ...] (+ [b_1 | b_2 | ...]): several projections of one source as one product,
// [B, n, sum of their outputs] (fewer, larger products; the weights' gradients split back).
Var project_together(const Var& x, const std::vector<const Linear*>& projections, bool bias) {
  std::vector<Var> weights, biases;
  for (const Linear* l : projections) {
    weights.push_back(l->weight());
    if (bias) biases.push_back(l->bias());
  }
  const Var y = matmul(x, concat(weights, 1));
  return bias ? y + concat(biases, 0) : y;
}

}  // namespace

HeadProjections::HeadProjections(const ParamScope& scope, const MultiHead& config, std::size_t query_dim,
                                 std::size_t key_dim, std::size_t value_dim)
    : config_(checked(config)),
      w_q_(scope.child("W_q"), query_dim, config.hidden, config.bias, projection_init(config, query_dim)),
      w_k_(scope.child("W_k"), key_dim, config_.kv_heads * head_dim(), config.bias, projection_init(config, key_dim)),
      w_v_(scope.child("W_v"), value_dim, config_.kv_heads * head_dim(), config.bias, projection_init(config, value_dim)),
      w_o_(scope.child("W_o"), config.hidden, config.hidden, config.bias, projection_init(config, config.hidden)) {}

// Sources that are one sequence are projected by one product: Q, K, V of self-attention
// (x [W_q | W_k | W_v]), or K, V of attention over a memory (m [W_k | W_v]).
FormedQkv HeadProjections::split(const FormedQkv& formed) const {
  const std::size_t h = config_.heads, g = config_.kv_heads, d = config_.hidden, kv = g * head_dim();
  const bool kv_one = formed.keys.node() == formed.values.node();
  if (kv_one && formed.queries.node() == formed.keys.node()) {
    const Var qkv = project_together(formed.queries, {&w_q_, &w_k_, &w_v_}, config_.bias);  // [B, n, hidden + 2 kv]
    return {split_heads(qkv, h, 0, d), split_heads(qkv, g, d, kv), split_heads(qkv, g, d + kv, kv)};
  }
  const Var q = split_queries(formed.queries);  // [B*h, n_q, p]
  if (kv_one) {
    const Var both = project_together(formed.keys, {&w_k_, &w_v_}, config_.bias);  // [B, n_k, 2 kv]
    return {q, split_heads(both, g, 0, kv), split_heads(both, g, kv, kv)};
  }
  return {q, split_heads(w_k_(formed.keys), g), split_heads(w_v_(formed.values), g)};  // [B*g, n_k, p] each
}

Var HeadProjections::share(const Var& x) const {
  const std::size_t h = config_.heads, g = config_.kv_heads;
  if (g == h) return x;
  const std::size_t batch = x.dim(0) / g;
  IntTensor rows = IntTensor::from_shape({batch * h});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < h; ++i) rows(b * h + i) = static_cast<int>(b * g + i * g / h);
  return index_select(x, 0, rows);  // [B*h, n, p]
}

AttentionResult HeadProjections::merge(const AttentionResult& pooled) const {
  return {w_o_(merge_heads(pooled.output, config_.heads)),  // [B, n_q, hidden]
          pooled.weights, config_.heads};                    // [B*h, n_q, n_k]
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
