// Model `transformer`: d2l's Transformer (11.7), encoder-decoder of multi-head attention blocks.
//   X = dropout(embed(x) * sqrt(d) (+ P))                                 positions: any scheme
//   encoder: `layers` TransformerEncoderBlocks; decoder: `layers` TransformerDecoderBlocks
//   (their math: attnlab/models/transformer_blocks.hpp);  p(y_t) = softmax(out_t W_out + b)
// Options: d_model, ffn_hidden, heads, layers, dropout, scoring (any registered scoring
// function, default scaled_dot), scoring_options.*, normalizer (default softmax),
// normalizer_options.*, positional (a positional scheme, default sinusoidal; rope, alibi and
// t5_bias act in both stacks' self-attention), positional_options.*, max_len, window (the encoder's
// self-attention sees |i - j| < window; 0 = everything), loss, kv_cache.
// Decoding (kv_cache: true, the default) runs the decoder on the newest token only: each
// block's self-attention keeps the keys and values of the earlier positions (KeyValueCache),
// so a step costs the same at position 50 as at position 1 (but for its 50 dot products).
// kv_cache: false re-runs the decoder over the whole prefix at each step; the causal mask makes
// the two equal (tests/test_models.cpp checks it to 1e-6).
#include <cmath>
#include <memory>
#include <numeric>

#include "attnlab/attention/positions.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/registry.hpp"
#include "attnlab/models/sequence_model.hpp"
#include "attnlab/models/transformer_blocks.hpp"
#include "attnlab/nn/embedding.hpp"
#include "attnlab/nn/linear.hpp"

namespace attn {
namespace {

struct Hyper {
  TransformerBlockConfig block;
  std::size_t layers, max_len;
  bool kv_cache;
};

struct TransformerState final : DecoderState {
  Var memory;  // encoder outputs [B, T, d]
  IntTensor src_lens;
  std::vector<std::vector<int>> prefix;  // decoder inputs so far, per row
  // The encoder's maps of the sentences, [B_0, layer, head, T, T], shared by every selection
  // (beam search selects rows at every step and never reads them); row r's sentence is
  // source_row[r].
  std::shared_ptr<const Tensor> encoder_weights;
  std::vector<std::size_t> source_row;
  std::vector<TransformerDecoderBlock::Cache> cache;  // per decoder block (kv_cache: true)

  std::unique_ptr<DecoderState> select(const std::vector<std::size_t>& rows) const override {
    auto s = std::make_unique<TransformerState>();
    s->memory = take_rows(memory, rows);
    s->src_lens = take_rows(src_lens, rows);
    s->encoder_weights = encoder_weights;
    for (std::size_t r : rows) s->prefix.push_back(prefix[r]), s->source_row.push_back(source_row[r]);
    for (const auto& c : cache) s->cache.push_back(c.select(rows, memory.dim(0)));
    return s;
  }

  NamedTensors source_attention(std::size_t row) const override {
    const Tensor& all = *encoder_weights;
    const std::size_t per = all.size() / all.shape()[0];
    Tensor w = Tensor::from_shape({all.shape()[1], all.shape()[2], all.shape()[3], all.shape()[4]});
    std::copy_n(all.data() + source_row[row] * per, per, w.data());
    return {{"encoder_self", std::move(w)}};
  }

  // Every block's self-attention cache and its cross-attention's keys and values of the memory.
  std::size_t cache_bytes() const override {
    std::size_t bytes = 0;
    for (const auto& c : cache) bytes += c.self.bytes() + c.memory.bytes();
    return bytes;
  }
};

Hyper read_hyper(const Options& o) {
  Hyper h;
  h.block = block_options(o, 0.1f);
  h.layers = o.get<std::size_t>("layers", 2, 1, 64);
  h.max_len = o.get<std::size_t>("max_len", 1000, 1, 1 << 20);
  h.kv_cache = o.get<bool>("kv_cache", true);
  return h;
}

class Transformer final : public SequenceModel {
 public:
  explicit Transformer(const ModelArgs& a) : SequenceModel(a), h_(read_hyper(a.options)) {
    require_token_sources("model 'transformer'");
    const PluginChoice positional = positional_choice(a.options, "sinusoidal");
    if (h_.max_len < data_.num_steps)
      throw SpecError(a.options.where("max_len"), "option 'max_len' (" + std::to_string(h_.max_len) +
                                                        ") must be at least the dataset's num_steps (" + std::to_string(data_.num_steps) + ")");
    const ParamScope enc = a.params.child("encoder"), dec = a.params.child("decoder");
    const std::size_t d = h_.block.d_model, heads = h_.block.heads;
    src_input_.emplace(a.registries, enc, data_.src_vocab.size(), positional, PositionsOf{d, heads, h_.max_len, false}, h_.block.dropout);
    tgt_input_.emplace(a.registries, dec, data_.tgt_vocab.size(), positional, PositionsOf{d, heads, h_.max_len, true}, h_.block.dropout);
    TransformerBlockConfig enc_config = with_positions(h_.block, src_input_->positions());
    TransformerBlockConfig dec_config = with_positions(h_.block, tgt_input_->positions());
    for (std::size_t l = 0; l < h_.layers; ++l) {
      enc_config.site = site("encoder_self", l), dec_config.site = site("decoder_self", l);
      encoder_.emplace_back(a.registries, enc.child("block" + std::to_string(l)), enc_config);
      decoder_.emplace_back(a.registries, dec.child("block" + std::to_string(l)), dec_config);
    }
    output_.emplace(dec.child("output"), h_.block.d_model, data_.tgt_vocab.size());
  }

 protected:
  Var forward(const VectorBatch& src, const IntTensor& dec_input, const ForwardContext& context) override {
    std::vector<Var> ignored;
    const Var memory = encode(src.tokens, src.lens, context, ignored);
    std::vector<Var> self_w, cross_w;
    return (*output_)(decode(dec_input, memory, src.lens, context, self_w, cross_w));
  }

  std::unique_ptr<DecoderState> start(const VectorBatch& src) override {
    auto s = std::make_unique<TransformerState>();
    std::vector<Var> weights;
    s->memory = encode(src.tokens, src.lens, ForwardContext::evaluation(), weights);
    s->src_lens = src.lens;
    s->prefix.assign(src.size(), {});
    s->encoder_weights = std::make_shared<const Tensor>(stack_layers(weights));
    s->source_row.resize(src.size());
    std::iota(s->source_row.begin(), s->source_row.end(), std::size_t{0});
    if (h_.kv_cache) s->cache.resize(decoder_.size());
    return s;
  }

  DecodeStep step(DecoderState& base, const std::vector<int>& tokens) override {
    auto& s = static_cast<TransformerState&>(base);
    const std::size_t batch = tokens.size();
    for (std::size_t b = 0; b < batch; ++b) s.prefix[b].push_back(tokens[b]);
    std::vector<Var> self_w, cross_w;
    const Var out = (*output_)(h_.kv_cache ? decode_newest(s, tokens, self_w, cross_w) : decode_prefix(s, self_w, cross_w));
    DecodeStep step;  // the last position's logits [B, V]
    step.log_probs = log_softmax(reshape(slice(out, 1, out.dim(1) - 1, out.dim(1)), {batch, out.dim(2)})).value();
    step.attention.emplace_back("decoder_self", last_query(stack_layers(self_w)));
    step.attention.emplace_back("cross", last_query(stack_layers(cross_w)));
    return step;
  }

 private:
  // [B, layer, head, n_q, n_k] -> the last query's row [B, layer, head, n_k]
  static Tensor last_query(const Tensor& w) {
    const std::size_t b = w.shape()[0], l = w.shape()[1], hh = w.shape()[2], nq = w.shape()[3], nk = w.shape()[4];
    Tensor out = Tensor::from_shape({b, l, hh, nk});
    for (std::size_t i = 0; i < b * l * hh; ++i) std::copy_n(w.data() + (i * nq + nq - 1) * nk, nk, out.data() + i * nk);
    return out;
  }

  // The decoder over the whole prefix of every row: [B, t, d] (kv_cache: false).
  Var decode_prefix(const TransformerState& s, std::vector<Var>& self_w, std::vector<Var>& cross_w) const {
    const std::size_t batch = s.prefix.size(), t = s.prefix[0].size();
    IntTensor ids = IntTensor::from_shape({batch, t});
    for (std::size_t b = 0; b < batch; ++b) std::copy(s.prefix[b].begin(), s.prefix[b].end(), ids.data() + b * t);
    return decode(ids, s.memory, s.src_lens, ForwardContext::evaluation(), self_w, cross_w);
  }

  // The decoder on the newest tokens only, each block's self-attention reading its cache:
  // [B, 1, d]; the weights are the newest query's, [B, heads, 1, t] per block.
  Var decode_newest(TransformerState& s, const std::vector<int>& tokens, std::vector<Var>& self_w,
                    std::vector<Var>& cross_w) const {
    IntTensor ids = IntTensor::from_shape({tokens.size(), 1});
    std::copy(tokens.begin(), tokens.end(), ids.data());
    Var x = (*tgt_input_)(ids, ForwardContext::evaluation(), s.prefix[0].size() - 1);
    for (std::size_t l = 0; l < decoder_.size(); ++l) {
      self_w.emplace_back();
      cross_w.emplace_back();
      x = decoder_[l].step(x, s.memory, s.src_lens, s.cache[l], &self_w.back(), &cross_w.back());
    }
    return x;
  }

  Var encode(const IntTensor& src, const IntTensor& lens, const ForwardContext& context, std::vector<Var>& weights) const {
    Var x = (*src_input_)(src, context);
    for (const TransformerEncoderBlock& block : encoder_) {
      weights.emplace_back();
      x = block(x, lens, context, &weights.back());
    }
    return x;
  }

  Var decode(const IntTensor& ids, const Var& memory, const IntTensor& src_lens, const ForwardContext& context,
             std::vector<Var>& self_w, std::vector<Var>& cross_w) const {
    Var x = (*tgt_input_)(ids, context);
    for (const TransformerDecoderBlock& block : decoder_) {
      self_w.emplace_back();
      cross_w.emplace_back();
      x = block(x, memory, src_lens, context, &self_w.back(), &cross_w.back());
    }
    return x;
  }

  Hyper h_;
  std::optional<EmbeddedPositions> src_input_, tgt_input_;
  std::vector<TransformerEncoderBlock> encoder_;
  std::vector<TransformerDecoderBlock> decoder_;
  std::optional<Linear> output_;
};

}  // namespace

void register_model_transformer(Registry<Model, ModelArgs>& r) {
  r.add<Transformer>("transformer", "d2l's Transformer: multi-head self- and cross-attention, any scoring function");
}

}  // namespace attn
