// The blocks of d2l's Transformer (11.7), usable on their own (the `transformer` model stacks
// them; attnlab-bench W3 times one encoder block).
//   encoder block:  Y = LN(X + dropout(MHA_vvv(X)))                     self-attention
//                   out = LN(Y + dropout(FFN(Y)))
//   decoder block:  Y = LN(X + dropout(MHA_vvv,causal(X)))              causal self-attention
//                   Z = LN(Y + dropout(MHA_qvv(Y, memory)))             attention to the encoder
//                   out = LN(Z + dropout(FFN(Z)))
//   FFN(x) = relu(x W_1 + b_1) W_2 + b_2
// MHA has no biases (d2l); scoring is any registered scoring function (d2l: scaled_dot).
#pragma once

#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/positions.hpp"
#include "attnlab/nn/embedding.hpp"
#include "attnlab/nn/layer_norm.hpp"
#include "attnlab/nn/linear.hpp"

namespace attn {

struct TransformerBlockConfig {
  std::size_t d_model = 256;
  std::size_t ffn_hidden = 1024;
  std::size_t heads = 8;  // d_model must be a multiple of heads
  std::size_t kv_heads = 0;  // heads of keys and values (grouped-query, multi_head.hpp); 0: heads
  float dropout = 0.0f;   // on the attention weights and before each residual sum
  PluginChoice scoring{"scaled_dot", {}, ""};
  PluginChoice normalizer = AttentionConfig{}.normalizer;  // of every attention block
  std::size_t window = 0;  // encoder self-attention: query i sees keys |i - j| < window (0: all)
  std::shared_ptr<const CheckedPositional> positions;  // in every self-attention (rope, alibi, t5_bias)
  // The self-attention's site (map, layer; head_gates.hpp); a decoder block's cross-attention
  // is at ("cross", the same layer). A stack sets each block's layer.
  SiteTag site;
};

// The blocks' options of a model (d_model, ffn_hidden, heads, kv_heads, dropout, scoring,
// normalizer, window), with the Transformer's defaults but for the dropout; 'd_model' must be a multiple of
// 'heads' (refused at 'heads').
TransformerBlockConfig block_options(const Options& options, float default_dropout);
// Option 'kv_heads' (default: heads), refused at its place unless it divides heads.
std::size_t kv_heads_option(const Options& options, std::size_t heads);

// LN(x + dropout(y))
class AddNorm {
 public:
  AddNorm(const ParamScope& scope, std::size_t dim, float dropout);
  Var operator()(const Var& x, const Var& y, const ForwardContext& context) const;

 private:
  LayerNorm norm_;
  float dropout_;
};

// relu(x W_1 + b_1) W_2 + b_2, position by position
class PositionwiseFfn {
 public:
  PositionwiseFfn(const ParamScope& scope, std::size_t dim, std::size_t hidden);
  Var operator()(const Var& x) const { return out_(in_.with_relu(x)); }

 private:
  Linear in_, out_;
};

class TransformerEncoderBlock {
 public:
  TransformerEncoderBlock(const PluginKinds& kinds, const ParamScope& scope, const TransformerBlockConfig& config);
  // x [B, T, d] -> [B, T, d]; the attention weights [B, heads, T, T] go to *weights if given;
  // `score_bias` [B, T, T] (a structure_bias), when given, is added to the scores.
  Var operator()(const Var& x, const ValidLens& lens, const ForwardContext& context, Var* weights = nullptr,
                 const Var& score_bias = {}) const;

 private:
  Attention attention_;
  AddNorm add1_;
  PositionwiseFfn ffn_;
  AddNorm add2_;
};

class TransformerDecoderBlock {
 public:
  TransformerDecoderBlock(const PluginKinds& kinds, const ParamScope& scope, const TransformerBlockConfig& config);
  // x [B, t, d] over memory [B, T, d] (valid lengths memory_lens) -> [B, t, d]; the weights
  // of the self- and the cross-attention go to *self_weights and *cross_weights if given.
  Var operator()(const Var& x, const Var& memory, const ValidLens& memory_lens, const ForwardContext& context,
                 Var* self_weights = nullptr, Var* cross_weights = nullptr) const;
  // What decoding keeps per block: the keys and values of the positions decoded so far, and
  // those of the memory (formed at the first step).
  struct Cache {
    KeyValueCache self, memory;
    Cache select(const std::vector<std::size_t>& rows, std::size_t batch) const {
      return {self.select(rows, batch), memory.select(rows, batch)};
    }
  };
  // Decoding: x [B, 1, d] is the newest position; its self-attention reads the earlier ones
  // from `cache` (and adds its own). Equals operator()'s last row on the whole prefix.
  Var step(const Var& x, const Var& memory, const ValidLens& memory_lens, Cache& cache,
           Var* self_weights = nullptr, Var* cross_weights = nullptr) const;

 private:
  // Everything after the self-attention s of x: add & norm, cross-attention, add & norm, FFN.
  // What follows the cross-attention c of y = LN(x + s): add & norm, FFN, add & norm.
  Var after_cross_attention(const Var& y, const AttentionResult& s, const AttentionResult& c,
                            const ForwardContext& context, Var* self_weights, Var* cross_weights) const;

  Attention self_attention_, cross_attention_;
  AddNorm add1_, add2_;
  PositionwiseFfn ffn_;
  AddNorm add3_;
};

// PyTorch's nn.Linear weights: U(-a, a) with a = 1/sqrt(fan_in).
Init torch_linear(std::size_t fan_in);

// The pre-norm block of ViT (d2l 11.8) and GPT (a language model's):
//   Y = X + MHA(LN1(X))                                       MHA without biases, dropout on its weights
//   out = Y + dropout(W_2 dropout(GELU(LN2(Y) W_1 + b_1)) + b_2)
// causal: query i sees keys 0..i. Linear weights U(+-1/sqrt(fan_in)) as PyTorch's, biases 0.
// Parameters: <scope>.norm1, .attention, .norm2, .mlp1, .mlp2.
struct PreNormConfig {
  std::size_t d_model = 512, mlp_hidden = 2048, heads = 8;
  std::size_t kv_heads = 0;  // heads of keys and values (grouped-query, multi_head.hpp); 0: heads
  float dropout = 0.1f;
  PluginChoice scoring{"scaled_dot", {}, ""};
  PluginChoice normalizer = AttentionConfig{}.normalizer;
  bool causal = false;
  std::shared_ptr<const CheckedPositional> positions;  // in every self-attention (rope, alibi, t5_bias)
  SiteTag site;  // the attention's site (map, layer; head_gates.hpp)
  bool pytorch_init = false;  // the attention's projections as PyTorch initialises them (MultiHead)
};

class PreNormBlock {
 public:
  PreNormBlock(const PluginKinds& kinds, const ParamScope& scope, const PreNormConfig& config);
  // x [B, n, d] -> [B, n, d]; the weights [B, heads, n, n] go to *weights if given.
  Var operator()(const Var& x, const ForwardContext& context, Var* weights = nullptr) const;
  // Decoding (causal): x [B, n, d] are the newest positions; their attention reads the earlier
  // ones from `cache` and adds their own. Equals operator()'s last n rows on the whole sequence.
  Var step(const Var& x, KeyValueCache& cache, Var* weights = nullptr) const;

 private:
  Var after_attention(const Var& x, const AttentionResult& a, const ForwardContext& context, Var* weights) const;

  LayerNorm norm1_;
  Attention attention_;
  LayerNorm norm2_;
  Linear mlp1_, mlp2_;
  float dropout_;
};

// The attention-only block of d2l-neu's character model: out = X + MHA_causal(X) (no norm, no
// FFN; MHA without biases). Parameters: <scope>.attention.
class CausalAttentionBlock {
 public:
  CausalAttentionBlock(const PluginKinds& kinds, const ParamScope& scope, const PreNormConfig& config);
  Var operator()(const Var& x, const ForwardContext& context, Var* weights = nullptr) const;
  // Decoding, as PreNormBlock::step.
  Var step(const Var& x, KeyValueCache& cache, Var* weights = nullptr) const;

 private:
  Attention attention_;
};

// X = dropout(embed(ids) * sqrt(d) (+ P)): the input of both of the Transformer's stacks, and
// the positional scheme of the stack's self-attention. Parameters: <scope>.embedding,
// <scope>.positional.
class EmbeddedPositions {
 public:
  EmbeddedPositions(const PluginKinds& kinds, const ParamScope& scope, std::size_t vocab, const PluginChoice& positional,
                    const PositionsOf& model, float dropout);
  // ids [B, T] at positions first .. first + T - 1 -> [B, T, d]
  Var operator()(const IntTensor& ids, const ForwardContext& context, std::size_t first = 0) const;
  const Positions& positions() const { return positions_; }

 private:
  Embedding embedding_;
  Positions positions_;
  float scale_, dropout_;
};

// The Transformer's encoder: EmbeddedPositions, then `layers` encoder blocks. Parameters:
// <scope>.embedding, <scope>.positional, <scope>.block<l>.
class TransformerEncoder {
 public:
  TransformerEncoder(const PluginKinds& kinds, const ParamScope& scope, const TransformerBlockConfig& config,
                     std::size_t vocab, std::size_t layers, const PluginChoice& positional, std::size_t max_len);
  // ids [B, T] -> [B, T, d]; every block's attention weights [B, heads, T, T] go to *weights if given.
  Var operator()(const IntTensor& ids, const ValidLens& lens, const ForwardContext& context,
                 std::vector<Var>* weights = nullptr) const;

 private:
  EmbeddedPositions input_;
  std::vector<TransformerEncoderBlock> blocks_;
};

// A Transformer block config with `positions` in its self-attention.
TransformerBlockConfig with_positions(TransformerBlockConfig config, const Positions& positions);

// Attention weights of a layer stack, [B, heads, n_q, n_k] each -> [B, layer, head, n_q, n_k].
Tensor stack_layers(const std::vector<Var>& weights);

}  // namespace attn
