#include "attnlab/attention/attention.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace attn {
namespace {

// A mask for queries [0, t) ([B, t] lengths or [B, t, 2] key ranges; none) cut to its last n
// query rows: the mask of the newest n positions.
ValidLens last_queries(const ValidLens& mask, std::size_t n) {
  if (!mask || mask->dimension() == 1) return mask;
  Shape shape(mask->shape().begin(), mask->shape().end());
  const std::size_t t = shape[1], per = mask->size() / (shape[0] * t);
  shape[1] = n;
  IntTensor out = IntTensor::from_shape(shape);
  for (std::size_t b = 0; b < shape[0]; ++b)
    std::copy_n(mask->data() + (b * t + t - n) * per, n * per, out.data() + b * n * per);
  return out;
}

// The stored row that row i of a cache reads under `order` (KeyValueCache::order; empty: i).
std::size_t stored_row(const std::vector<std::size_t>& order, std::size_t i) { return order.empty() ? i : order[i]; }

// Each row's cached positions then its new ones: [R, t, p] read in `order` (all R rows in
// order when empty) and fresh [B', n, p] -> [B', t + n, p], in one pass. A constant: decoding
// is evaluation, never differentiated.
Var append_positions(const Var& cached, const std::vector<std::size_t>& order, const Var& fresh) {
  const std::size_t rows = fresh.dim(0), t = cached.dim(1), n = fresh.dim(1), p = fresh.dim(2);
  if ((order.empty() ? cached.dim(0) : order.size()) != rows || cached.dim(2) != p)
    throw std::invalid_argument("key/value cache: cached " + shape_str(cached.shape()) + " in " +
                                std::to_string(order.size()) + " rows' order do not match new positions " +
                                shape_str(fresh.shape()));
  Tensor out = Tensor::from_shape({rows, t + n, p});
  for (std::size_t i = 0; i < rows; ++i) {
    std::copy_n(cached.value().data() + stored_row(order, i) * t * p, t * p, out.data() + i * (t + n) * p);
    std::copy_n(fresh.value().data() + i * n * p, n * p, out.data() + (i * (t + n) + t) * p);
  }
  return constant(std::move(out));
}

// A bias [B, n_q, n_k] for scores [B', n_q, n_k], B' = B * heads: each sequence's bias repeated
// for its heads (rows b*heads + j, as split_heads orders them).
Var per_row(const Var& bias, std::size_t rows) {
  const std::size_t batch = bias.dim(0);
  if (rows == batch) return bias;
  if (batch == 0 || rows % batch != 0)
    throw std::invalid_argument("attention: a score bias of " + shape_str(bias.shape()) + " for " + std::to_string(rows) + " rows of scores");
  IntTensor index = IntTensor::from_shape({rows});
  for (std::size_t r = 0; r < rows; ++r) index(r) = static_cast<int>(r / (rows / batch));
  return index_select(bias, 0, index);
}

std::optional<HeadProjections> head_projections(const ParamScope& scope, const AttentionConfig& config,
                                                const CheckedMode& mode) {
  if (!config.multi_head) return std::nullopt;
  return HeadProjections(scope, *config.multi_head, mode.query_dim(), mode.key_dim(), mode.value_dim());
}

}  // namespace

Var structure_bias(const IntTensor& allowed, std::size_t lead) {
  const std::size_t b = allowed.shape()[0], n = allowed.shape()[1], m = lead + n;
  Tensor bias = xt::zeros<float>({b, m, m});
  for (std::size_t r = 0; r < b; ++r)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (!allowed(r, i, j)) bias(r, lead + i, lead + j) = masked_score;
  return constant(std::move(bias));
}

Attention::Attention(const PluginKinds& kinds, const ParamScope& scope, const AttentionConfig& config,
                     std::size_t query_dim, std::size_t key_dim, std::size_t value_dim)
    : mode_(make_mode(kinds, config.mode, scope.child("mode"), query_dim, key_dim, value_dim)),
      heads_(head_projections(scope, config, mode_)),
      positions_(config.positions),
      scoring_(make_scoring(kinds, config.scoring, scope.child("scoring"),
                            heads_ ? heads_->head_dim() : mode_.query_dim(),
                            heads_ ? heads_->head_dim() : mode_.key_dim())),
      normalizer_(make_normalizer(kinds, config.normalizer, scope.child("normalizer"))),
      dropout_(config.dropout) {
  // Without multi-head projections the caller may have split heads into the batch (gat, rows
  // b * heads + h): the scheme's heads are then its.
  const std::size_t heads = heads_ ? heads_->output_dim() / heads_->head_dim() : positions_ ? positions_->heads : 1;
  const std::size_t head_dim = heads_ ? heads_->head_dim() : mode_.query_dim();
  if (positions_ && (positions_->heads != heads || (positions_->traits.rotates && positions_->head_dim != head_dim)))
    throw std::invalid_argument(positions_->who + " was made for " + std::to_string(positions_->heads) + " heads of size " +
                                std::to_string(positions_->head_dim) + "; this attention has " + std::to_string(heads) + " of size " +
                                std::to_string(head_dim));
  if (config.site.gates) {
    gates_ = config.site.gates;
    site_ = gates_->add_site({config.site.map, config.site.layer, heads_ ? heads : std::max<std::size_t>(config.site.heads, 1),
                              heads_ ? heads_->head_dim() : mode_.value_dim()});
  }
}

AttentionResult Attention::operator()(const AttentionSources& sources, const ValidLens& lens,
                                      const ForwardContext& context, const Var& score_bias) const {
  const FormedQkv formed = mode_.form(sources);                       // [B, n, d]
  FormedQkv qkv = heads_ ? heads_->split(formed) : formed;             // [B*h, n, p] for multi-head
  const std::size_t batch = sources.query.dim(0);
  const ValidLens mask = mode_.valid_lens(lens, batch, qkv.queries.dim(1), qkv.keys.dim(1));
  Var bias = score_bias.defined() ? per_row(score_bias, qkv.queries.dim(0)) : Var();
  if (positions_) bias = with_positions(qkv, 0, 0, bias);
  return attend(qkv, mask, context, bias);
}

// Queries at positions q0.., keys at k0.. (a cache's new keys): rotated as the positional scheme
// says, and its bias per head added to `bias` (rows b * heads + h, as split_heads orders them).
Var Attention::with_positions(FormedQkv& qkv, std::size_t q0, std::size_t k0, const Var& bias) const {
  qkv.queries = positions_->rotate(qkv.queries, q0, Role::queries);
  qkv.keys = positions_->rotate(qkv.keys, k0, Role::keys);
  const std::size_t rows = qkv.queries.dim(0), heads = positions_->heads;
  const Var per_head = positions_->bias(q0, qkv.queries.dim(1), 0, k0 + qkv.keys.dim(1));  // [heads, n_q, n_k]
  if (!per_head.defined()) return bias;
  IntTensor index = IntTensor::from_shape({rows});
  for (std::size_t r = 0; r < rows; ++r) index(r) = static_cast<int>(r % heads);
  const Var tiled = index_select(per_head, 0, index);  // [B*heads, n_q, n_k]
  return bias.defined() ? bias + tiled : tiled;
}

AttentionResult Attention::extend(const AttentionSources& sources, KeyValueCache& cache) const {
  const FormedQkv formed = mode_.form(sources);                       // [B, n, d]: the new positions
  FormedQkv fresh = heads_ ? heads_->split(formed) : formed;           // [B', n, p]
  const std::size_t before = cache.keys.defined() ? cache.keys.dim(1) : 0;
  Var bias;
  if (positions_) {  // the new positions are before .. before + n - 1; the bias spans every key
    bias = with_positions(fresh, before, before, Var());
  }
  if (cache.keys.defined()) {  // [B', t, p]
    cache.keys = append_positions(cache.keys, cache.order, fresh.keys);
    cache.values = append_positions(cache.values, cache.order, fresh.values);
  } else {
    cache.keys = fresh.keys, cache.values = fresh.values;
  }
  cache.order.clear();
  const std::size_t batch = sources.query.dim(0), n = fresh.queries.dim(1), t = cache.keys.dim(1);
  const ValidLens mask = last_queries(mode_.valid_lens(std::nullopt, batch, t, t), n);
  return attend({fresh.queries, cache.keys, cache.values}, mask, ForwardContext::evaluation(), bias);
}

AttentionResult Attention::over_memory(const AttentionSources& sources, const ValidLens& lens, KeyValueCache& cache) const {
  const FormedQkv formed = mode_.form(sources);  // (without the mode's own projections: no arithmetic)
  Var queries;
  if (!cache.order.empty()) cache = cache.ordered();
  if (cache.keys.defined()) {
    queries = heads_ ? heads_->split_queries(formed.queries) : formed.queries;  // [B', n_q, p]
  } else {
    const FormedQkv qkv = heads_ ? heads_->split(formed) : formed;
    queries = qkv.queries, cache = {qkv.keys, qkv.values, {}};
  }
  const std::size_t batch = sources.query.dim(0);
  const ValidLens mask = mode_.valid_lens(lens, batch, queries.dim(1), cache.keys.dim(1));
  return attend({queries, cache.keys, cache.values}, mask, ForwardContext::evaluation());
}

AttentionResult Attention::attend(const FormedQkv& qkv, const ValidLens& mask, const ForwardContext& context,
                                  const Var& score_bias) const {
  const ValidLens lens = heads_ ? heads_->repeat(mask) : mask;
  const FormedQkv shared = heads_ ? FormedQkv{qkv.queries, heads_->share(qkv.keys), heads_->share(qkv.values)} : qkv;
  AttentionResult pooled;
  const bool watched = gates_ && gates_->watching_weights();  // (the weights as a Var, to differentiate)
  if (scoring_.dot_scale && normalizer_.masked_softmax && !score_bias.defined() && !watched) {
    // A dot product and a softmax: fused (the same arithmetic and the same dropout mask; the
    // scores are never stored, and the weights are a constant).
    FusedAttention fused = softmax_attention(shared.queries, shared.keys, shared.values, *scoring_.dot_scale, lens,
                                             context.draw_dropout(dropout_), context.keeps_weights());
    pooled = {std::move(fused.output), std::move(fused.weights)};   // [B', n_q, p_v], [B', n_q, n_k]
  } else {
    Var scores = scoring_(shared.queries, shared.keys);                // [B', n_q, n_k]
    if (score_bias.defined()) scores = scores + score_bias;       // (already per row of heads)
    Var weights = normalizer_(scores, lens);                      // [B', n_q, n_k]
    if (watched) weights = gates_->watch(site_, weights);
    pooled = attention_pooling(weights, shared.values, dropout_, context);
  }
  if (gates_) pooled.output = gates_->apply(site_, pooled.output);  // [B', n_q, p_v]
  return heads_ ? heads_->merge(pooled) : pooled;
}

KeyValueCache KeyValueCache::select(const std::vector<std::size_t>& rows, std::size_t batch) const {
  const std::size_t current = order.empty() ? keys.dim(0) : order.size(), heads = current / batch;
  KeyValueCache out{keys, values, {}};
  out.order.reserve(rows.size() * heads);
  for (const std::size_t r : rows)
    for (std::size_t h = 0; h < heads; ++h) out.order.push_back(stored_row(order, r * heads + h));
  return out;
}

KeyValueCache KeyValueCache::ordered() const {
  if (order.empty()) return *this;
  IntTensor index = IntTensor::from_shape({order.size()});
  for (std::size_t i = 0; i < order.size(); ++i) index(i) = static_cast<int>(order[i]);
  return {index_select(keys, 0, index), index_select(values, 0, index), {}};
}

}  // namespace attn
