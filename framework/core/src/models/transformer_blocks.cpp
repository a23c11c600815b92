// The Transformer's blocks; the math is in transformer_blocks.hpp.
#include "attnlab/models/transformer_blocks.hpp"

#include <cmath>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"

namespace attn {
namespace {

// window > 0: each query sees the keys within `window` positions (vvv's option window).
// Self-attention takes the blocks' positional scheme; cross-attention none.
AttentionConfig multi_head(const TransformerBlockConfig& c, const char* mode, bool causal, bool self, std::size_t window = 0) {
  AttentionConfig m;
  m.mode = {mode, {}, ""};
  if (causal) m.mode.options.set("causal", "true");
  if (window > 0) m.mode.options.set("window", std::to_string(window));
  m.scoring = c.scoring;
  m.normalizer = c.normalizer;
  m.dropout = c.dropout;
  m.multi_head = MultiHead{c.heads, c.d_model, false, c.kv_heads};
  if (self) m.positions = c.positions;
  m.site = self ? c.site : c.site.at("cross", c.site.layer);
  return m;
}

AttentionConfig pre_norm_attention(const PreNormConfig& c) {
  AttentionConfig a;
  a.mode = {"vvv", {}, ""};
  if (c.causal) a.mode.options.set("causal", "true");
  a.scoring = c.scoring;
  a.normalizer = c.normalizer;
  a.dropout = c.dropout;
  a.multi_head = MultiHead{c.heads, c.d_model, false, c.kv_heads, c.pytorch_init};
  a.positions = c.positions;
  a.site = c.site;
  return a;
}

}  // namespace

std::size_t kv_heads_option(const Options& o, std::size_t heads) {
  const std::size_t kv = o.get<std::size_t>("kv_heads", heads, 1, 1024);
  if (heads % kv != 0)
    throw SpecError(o.where("kv_heads"), "option 'kv_heads' (" + std::to_string(kv) + ") must divide 'heads' (" + std::to_string(heads) +
                                             "): each key/value head serves heads / kv_heads query heads (1: multi-query)");
  return kv;
}

Init torch_linear(std::size_t fan_in) { return Init::uniform(1.0f / std::sqrt(static_cast<float>(fan_in))); }

PreNormBlock::PreNormBlock(const PluginKinds& kinds, const ParamScope& s, const PreNormConfig& c)
    : norm1_(s.child("norm1"), c.d_model),
      attention_(kinds, s.child("attention"), pre_norm_attention(c), c.d_model, c.d_model, c.d_model),
      norm2_(s.child("norm2"), c.d_model),
      mlp1_(s.child("mlp1"), c.d_model, c.mlp_hidden, true, torch_linear(c.d_model)),
      mlp2_(s.child("mlp2"), c.mlp_hidden, c.d_model, true, torch_linear(c.mlp_hidden)),
      dropout_(c.dropout) {}

Var PreNormBlock::operator()(const Var& x, const ForwardContext& context, Var* weights) const {
  const Var h = norm1_(x);
  return after_attention(x, attention_({h, h, h}, std::nullopt, context), context, weights);
}

Var PreNormBlock::step(const Var& x, KeyValueCache& cache, Var* weights) const {
  const Var h = norm1_(x);
  return after_attention(x, attention_.extend({h, h, h}, cache), ForwardContext::evaluation(), weights);
}

// Everything after the attention a of LN1(x): the residual, then the MLP's.
Var PreNormBlock::after_attention(const Var& x, const AttentionResult& a, const ForwardContext& context, Var* weights) const {
  if (weights) *weights = a.weights_by_head();
  const Var y = x + a.output;
  const Var hidden = context.dropout(gelu(mlp1_(norm2_(y))), dropout_);  // [B, n, mlp_hidden]
  return y + context.dropout(mlp2_(hidden), dropout_);
}

CausalAttentionBlock::CausalAttentionBlock(const PluginKinds& kinds, const ParamScope& s, const PreNormConfig& c)
    : attention_(kinds, s.child("attention"), pre_norm_attention(c), c.d_model, c.d_model, c.d_model) {}

Var CausalAttentionBlock::operator()(const Var& x, const ForwardContext& context, Var* weights) const {
  const AttentionResult a = attention_({x, x, x}, std::nullopt, context);
  if (weights) *weights = a.weights_by_head();
  return x + a.output;
}

Var CausalAttentionBlock::step(const Var& x, KeyValueCache& cache, Var* weights) const {
  const AttentionResult a = attention_.extend({x, x, x}, cache);
  if (weights) *weights = a.weights_by_head();
  return x + a.output;
}

TransformerBlockConfig block_options(const Options& o, float default_dropout) {
  TransformerBlockConfig c;
  c.d_model = o.get<std::size_t>("d_model", 32, 1, 1 << 16);
  c.ffn_hidden = o.get<std::size_t>("ffn_hidden", 64, 1, 1 << 20);
  c.heads = o.get<std::size_t>("heads", 4, 1, 1024);
  c.dropout = o.get<float>("dropout", default_dropout, 0.0f, 0.99f);
  c.scoring = plugin_choice(o, "scoring", "scaled_dot");
  c.normalizer = plugin_choice(o, "normalizer", c.normalizer.name);
  c.window = o.get<std::size_t>("window", 0, 0, 1 << 20);
  if (c.d_model % c.heads != 0)
    throw SpecError(o.where("heads"), "option 'd_model' (" + std::to_string(c.d_model) + ") must be a multiple of 'heads' (" +
                                          std::to_string(c.heads) + ")");
  c.kv_heads = kv_heads_option(o, c.heads);
  return c;
}

AddNorm::AddNorm(const ParamScope& scope, std::size_t dim, float dropout) : norm_(scope, dim), dropout_(dropout) {}

Var AddNorm::operator()(const Var& x, const Var& y, const ForwardContext& context) const {
  return norm_.of_sum(x, context.dropout(y, dropout_));
}

PositionwiseFfn::PositionwiseFfn(const ParamScope& scope, std::size_t dim, std::size_t hidden)
    : in_(scope.child("ffn1"), dim, hidden), out_(scope.child("ffn2"), hidden, dim) {}

TransformerEncoderBlock::TransformerEncoderBlock(const PluginKinds& r, const ParamScope& s, const TransformerBlockConfig& c)
    : attention_(r, s.child("attention"), multi_head(c, "vvv", false, true, c.window), c.d_model, c.d_model, c.d_model),
      add1_(s.child("norm1"), c.d_model, c.dropout),
      ffn_(s, c.d_model, c.ffn_hidden),
      add2_(s.child("norm2"), c.d_model, c.dropout) {}

Var TransformerEncoderBlock::operator()(const Var& x, const ValidLens& lens, const ForwardContext& context, Var* weights,
                                        const Var& score_bias) const {
  const AttentionResult a = attention_({x, x, x}, lens, context, score_bias);
  if (weights) *weights = a.weights_by_head();
  const Var y = add1_(x, a.output, context);
  return add2_(y, ffn_(y), context);
}

TransformerDecoderBlock::TransformerDecoderBlock(const PluginKinds& r, const ParamScope& s, const TransformerBlockConfig& c)
    : self_attention_(r, s.child("self_attention"), multi_head(c, "vvv", true, true), c.d_model, c.d_model, c.d_model),
      cross_attention_(r, s.child("cross_attention"), multi_head(c, "qvv", false, false), c.d_model, c.d_model, c.d_model),
      add1_(s.child("norm1"), c.d_model, c.dropout),
      add2_(s.child("norm2"), c.d_model, c.dropout),
      ffn_(s, c.d_model, c.ffn_hidden),
      add3_(s.child("norm3"), c.d_model, c.dropout) {}

Var TransformerDecoderBlock::operator()(const Var& x, const Var& memory, const ValidLens& memory_lens, const ForwardContext& context, Var* self_weights, Var* cross_weights) const {
  const AttentionResult s = self_attention_({x, x, x}, std::nullopt, context);
  const Var y = add1_(x, s.output, context);
  return after_cross_attention(y, s, cross_attention_({y, memory, memory}, memory_lens, context), context,
                               self_weights, cross_weights);
}

Var TransformerDecoderBlock::step(const Var& x, const Var& memory, const ValidLens& memory_lens, Cache& cache,
                                  Var* self_weights, Var* cross_weights) const {
  const ForwardContext context = ForwardContext::evaluation();
  const AttentionResult s = self_attention_.extend({x, x, x}, cache.self);
  const Var y = add1_(x, s.output, context);
  return after_cross_attention(y, s, cross_attention_.over_memory({y, memory, memory}, memory_lens, cache.memory),
                               context, self_weights, cross_weights);
}

Var TransformerDecoderBlock::after_cross_attention(const Var& y, const AttentionResult& s, const AttentionResult& c,
                                                   const ForwardContext& context, Var* self_weights,
                                                   Var* cross_weights) const {
  const Var z = add2_(y, c.output, context);
  if (self_weights) *self_weights = s.weights_by_head();
  if (cross_weights) *cross_weights = c.weights_by_head();
  return add3_(z, ffn_(z), context);
}

EmbeddedPositions::EmbeddedPositions(const PluginKinds& kinds, const ParamScope& scope, std::size_t vocab, const PluginChoice& positional,
                                     const PositionsOf& model, float dropout)
    : embedding_(scope.child("embedding"), vocab, model.dim),
      positions_(kinds, positional, scope.child("positional"), model),
      scale_(std::sqrt(static_cast<float>(model.dim))),
      dropout_(dropout) {}

Var EmbeddedPositions::operator()(const IntTensor& ids, const ForwardContext& context, std::size_t first) const {
  return positions_(embedding_(ids) * scale_, context, dropout_, first);
}

TransformerBlockConfig with_positions(TransformerBlockConfig config, const Positions& positions) {
  config.positions = positions.in_attention();
  return config;
}

TransformerEncoder::TransformerEncoder(const PluginKinds& kinds, const ParamScope& scope, const TransformerBlockConfig& config,
                                       std::size_t vocab, std::size_t layers, const PluginChoice& positional, std::size_t max_len)
    : input_(kinds, scope, vocab, positional, PositionsOf{config.d_model, config.heads, max_len}, config.dropout) {
  TransformerBlockConfig c = with_positions(config, input_.positions());
  for (std::size_t l = 0; l < layers; ++l) {
    c.site.layer = l;
    blocks_.emplace_back(kinds, scope.child("block" + std::to_string(l)), c);
  }
}

Var TransformerEncoder::operator()(const IntTensor& ids, const ValidLens& lens, const ForwardContext& context,
                                   std::vector<Var>* weights) const {
  Var x = input_(ids, context);
  for (const TransformerEncoderBlock& block : blocks_) {
    Var w;
    x = block(x, lens, context, weights ? &w : nullptr);
    if (weights) weights->push_back(w);
  }
  return x;
}

Tensor stack_layers(const std::vector<Var>& weights) {
  const Shape s = weights[0].shape();
  for (const Var& w : weights)
    if (w.shape() != s)
      throw std::invalid_argument("stack_layers: layers' weights " + shape_str(s) + " and " + shape_str(w.shape()) + " differ (other head counts)");
  Tensor out = Tensor::from_shape({s[0], weights.size(), s[1], s[2], s[3]});
  const std::size_t per = s[1] * s[2] * s[3];
  for (std::size_t b = 0; b < s[0]; ++b)
    for (std::size_t l = 0; l < weights.size(); ++l)
      std::copy_n(weights[l].value().data() + b * per, per, out.data() + (b * weights.size() + l) * per);
  return out;
}

}  // namespace attn
