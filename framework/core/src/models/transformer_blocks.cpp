// The Transformer's blocks; the math is in transformer_blocks.hpp.
#include "attnlab/models/transformer_blocks.hpp"

#include "attnlab/autodiff/ops.hpp"

namespace attn {
namespace {

AttentionConfig multi_head(const TransformerBlockConfig& c, const char* mode, bool causal) {
  AttentionConfig m;
  m.mode = {mode, {}, ""};
  if (causal) m.mode.options.set("causal", "true");
  m.scoring = c.scoring;
  m.normalizer = c.normalizer;
  m.dropout = c.dropout;
  m.multi_head = MultiHead{c.heads, c.d_model, false};
  return m;
}

}  // namespace

AddNorm::AddNorm(const ParamScope& scope, std::size_t dim, float dropout) : norm_(scope, dim), dropout_(dropout) {}

Var AddNorm::operator()(const Var& x, const Var& y, const ForwardContext& context) const {
  return norm_(x + context.dropout(y, dropout_));
}

PositionwiseFfn::PositionwiseFfn(const ParamScope& scope, std::size_t dim, std::size_t hidden)
    : in_(scope.child("ffn1"), dim, hidden), out_(scope.child("ffn2"), hidden, dim) {}

TransformerEncoderBlock::TransformerEncoderBlock(const PluginKinds& r, const ParamScope& s, const TransformerBlockConfig& c)
    : attention_(r, s.child("attention"), multi_head(c, "vvv", false), c.d_model, c.d_model, c.d_model),
      add1_(s.child("norm1"), c.d_model, c.dropout),
      ffn_(s, c.d_model, c.ffn_hidden),
      add2_(s.child("norm2"), c.d_model, c.dropout) {}

Var TransformerEncoderBlock::operator()(const Var& x, const ValidLens& lens, const ForwardContext& context, Var* weights) const {
  const AttentionResult a = attention_({x, x, x}, lens, context);
  if (weights) *weights = a.weights;
  const Var y = add1_(x, a.output, context);
  return add2_(y, ffn_(y), context);
}

TransformerDecoderBlock::TransformerDecoderBlock(const PluginKinds& r, const ParamScope& s, const TransformerBlockConfig& c)
    : self_attention_(r, s.child("self_attention"), multi_head(c, "vvv", true), c.d_model, c.d_model, c.d_model),
      cross_attention_(r, s.child("cross_attention"), multi_head(c, "qvv", false), c.d_model, c.d_model, c.d_model),
      add1_(s.child("norm1"), c.d_model, c.dropout),
      add2_(s.child("norm2"), c.d_model, c.dropout),
      ffn_(s, c.d_model, c.ffn_hidden),
      add3_(s.child("norm3"), c.d_model, c.dropout) {}

Var TransformerDecoderBlock::operator()(const Var& x, const Var& memory, const ValidLens& memory_lens, const ForwardContext& context, Var* self_weights, Var* cross_weights) const {
  const AttentionResult s = self_attention_({x, x, x}, std::nullopt, context);
  const Var y = add1_(x, s.output, context);
  const AttentionResult c = cross_attention_({y, memory, memory}, memory_lens, context);
  const Var z = add2_(y, c.output, context);
  if (self_weights) *self_weights = s.weights;
  if (cross_weights) *cross_weights = c.weights;
  return add3_(z, ffn_(z), context);
}

}  // namespace attn
