// Model `encoder_tagger`: an encoder alone, one prediction per position (a tagger), for tasks
// whose target has the source's length (copy, reverse, sort):
//   h = encoder(x)              [B, T, d]
//   p(y_i) = softmax(h_i W + b)  target token i predicted from source position i
// encoder `self_attention`: EmbeddedPositions, then `layers` Transformer encoder blocks; with
//   option `window` k each query sees only the keys |i - j| < k (vvv's window).
// encoder `convolution`: embed(x) sqrt(d) (+ P), then `layers` blocks LN(x + relu(conv(x))) with
//   a Conv1d of odd width `kernel` (same padding; padded positions are zeroed first).
// Each layer lets position i see k - 1 (attention) or (kernel - 1) / 2 (convolution) more
// positions each way, so after L layers it sees |i - j| <= L (k - 1): a task whose output i needs
// an input farther away cannot be learned (d2l 11.6: self-attention's maximum path length is
// O(1), a CNN's O(n / k); with a window, self-attention is a CNN whose kernel is computed).
// Decoding reads the predictions position by position (the tokens fed back are ignored).
// Options: encoder, d_model, heads, layers, ffn_hidden, dropout, window, kernel, scoring,
// normalizer, positional (a positional scheme, default sinusoidal; the convolution takes only
// those that add to the input), positional_options.*, max_len, loss.
#include <cmath>

#include "attnlab/models/sequence_model.hpp"
#include "attnlab/models/transformer_blocks.hpp"
#include "attnlab/nn/conv1d.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

struct TaggerState final : DecoderState {
  Tensor log_probs;     // [B, T, V]
  Tensor self_weights;  // [B, layer, head, T, T]; 0-dimensional for the convolution
  std::size_t step = 0;

  std::unique_ptr<DecoderState> select(const std::vector<std::size_t>& rows) const override {
    auto s = std::make_unique<TaggerState>();
    s->log_probs = take_rows(constant(log_probs), rows).value();
    if (self_weights.dimension() > 0) s->self_weights = take_rows(constant(self_weights), rows).value();
    s->step = step;
    return s;
  }

  NamedTensors source_attention(std::size_t row) const override {
    if (self_weights.dimension() == 0) return {};
    Tensor w = take_rows(constant(self_weights), {row}).value();  // [1, layer, head, T, T]
    w.reshape(Shape(w.shape().begin() + 1, w.shape().end()));
    return {{"encoder_self", std::move(w)}};
  }
};

class ConvolutionEncoder {
 public:
  ConvolutionEncoder(const PluginKinds& kinds, const ParamScope& scope, const TransformerBlockConfig& c, std::size_t vocab, std::size_t layers,
                     std::size_t kernel, const PluginChoice& positional, std::size_t max_len)
      : input_(kinds, scope, vocab, positional, convolution_positions(c, max_len), c.dropout) {
    for (std::size_t l = 0; l < layers; ++l) {
      const ParamScope block = scope.child("block" + std::to_string(l));
      convs_.emplace_back(block.child("conv"), c.d_model, c.d_model, kernel);
      norms_.emplace_back(block.child("norm"), c.d_model, c.dropout);
    }
  }

  // ids [B, T] -> [B, T, d]; positions at or past a row's length are zeroed before each convolution.
  Var operator()(const IntTensor& ids, const IntTensor& lens, const ForwardContext& context) const {
    Var x = input_(ids, context);
    const Var keep = constant(padding_mask(lens, x.dim(1), x.dim(2)));
    for (std::size_t l = 0; l < convs_.size(); ++l) x = norms_[l](x, relu(convs_[l](x * keep)), context);
    return x;
  }

 private:
  static PositionsOf convolution_positions(const TransformerBlockConfig& c, std::size_t max_len) {
    PositionsOf p{c.d_model, c.heads, max_len};
    p.no_attention_scores = "encoder 'convolution' has no attention scores";
    return p;
  }

  static Tensor padding_mask(const IntTensor& lens, std::size_t steps, std::size_t dim) {
    Tensor keep = xt::zeros<float>({lens.size(), steps, dim});
    for (std::size_t b = 0; b < lens.size(); ++b)
      std::fill_n(keep.data() + b * steps * dim, std::min<std::size_t>(steps, static_cast<std::size_t>(std::max(0, lens(b)))) * dim, 1.0f);
    return keep;
  }

  EmbeddedPositions input_;
  std::vector<Conv1d> convs_;
  std::vector<AddNorm> norms_;
};

// A tagger labels each source position: every target of the training and validation splits
// must be as long as its source (copy, reverse, sort; not add, not a translation).
void require_targets_as_long_as_sources(const SequenceData& data) {
  for (const SequenceSplit* split : {&data.train, &data.valid})
    for (std::size_t i = 0; i < split->size(); ++i)
      if (split->src_lens(i) != split->tgt_lens(i))
        throw std::invalid_argument("model 'encoder_tagger' labels each source position, so every target must be as long as its "
                                    "source; example " + std::to_string(i) + " has a source of " + std::to_string(split->src_lens(i)) +
                                    " tokens and a target of " + std::to_string(split->tgt_lens(i)) +
                                    " (the tasks copy, reverse and sort keep the length; for the others use seq2seq or transformer)");
}

class EncoderTagger final : public SequenceModel {
 public:
  explicit EncoderTagger(const ModelArgs& a) : SequenceModel(a) {
    require_token_sources("model 'encoder_tagger'");
    require_targets_as_long_as_sources(data_);
    const Options& o = a.options;
    const std::string encoder = o.get<std::string>("encoder", "self_attention");
    if (encoder != "self_attention" && encoder != "convolution")
      throw SpecError(o.where("encoder"), "option 'encoder' must be 'self_attention' or 'convolution', got '" + encoder + "'");
    if (encoder == "convolution")  // (read, with their defaults, by the blocks' shared options below)
      for (const std::string& key : o.keys())
        for (const char* attention_only : {"heads", "kv_heads", "ffn_hidden", "scoring", "normalizer"})
          if (key == attention_only || key.rfind(std::string(attention_only) + "_options.", 0) == 0)
            throw SpecError(o.where(key), "option '" + key + "' is for encoder 'self_attention': a convolution has no attention "
                                          "heads, scores or feed-forward layer (its options: kernel, layers, d_model, dropout, positional)");
    TransformerBlockConfig c = block_options(o, 0.0f);
    c.site = site("encoder_self");
    const std::size_t layers = o.get<std::size_t>("layers", 2, 1, 64), max_len = o.get<std::size_t>("max_len", 1000, 1, 1 << 20);
    const PluginChoice positional = positional_choice(o, "sinusoidal");
    if (max_len < data_.num_steps)
      throw SpecError(o.where("max_len"), "option 'max_len' (" + std::to_string(max_len) + ") must be at least the dataset's num_steps (" +
                                              std::to_string(data_.num_steps) + ")");
    const ParamScope scope = a.params.child("encoder");
    if (encoder == "convolution") {
      const std::size_t kernel = o.get<std::size_t>("kernel", 3, 1, 1001);
      if (kernel % 2 == 0) throw SpecError(o.where("kernel"), "option 'kernel' must be odd (same padding), got " + std::to_string(kernel));
      if (o.has("window")) throw SpecError(o.where("window"), "option 'window' is for encoder 'self_attention'; a convolution's reach is its 'kernel'");
      convolution_.emplace(a.registries, scope, c, data_.src_vocab.size(), layers, kernel, positional, max_len);
    } else {
      attention_.emplace(a.registries, scope, c, data_.src_vocab.size(), layers, positional, max_len);
    }
    output_.emplace(a.params.child("output"), c.d_model, data_.tgt_vocab.size());
  }

 protected:
  // dec_input is not read: position i's prediction depends on the source alone.
  Var forward(const VectorBatch& src, const IntTensor&, const ForwardContext& context) override {
    return (*output_)(encode(src, context, nullptr));
  }

  std::unique_ptr<DecoderState> start(const VectorBatch& src) override {
    auto s = std::make_unique<TaggerState>();
    std::vector<Var> weights;
    s->log_probs = log_softmax((*output_)(encode(src, ForwardContext::evaluation(), &weights))).value();
    if (!weights.empty()) s->self_weights = stack_layers(weights);
    return s;
  }

  // Step t reads position t's prediction; past the source's end only <eos> is possible.
  DecodeStep step(DecoderState& base, const std::vector<int>& tokens) override {
    auto& s = static_cast<TaggerState&>(base);
    const std::size_t batch = tokens.size(), steps = s.log_probs.shape()[1], vocab = s.log_probs.shape()[2];
    DecodeStep out;
    out.log_probs = Tensor::from_shape({batch, vocab});
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t v = 0; v < vocab; ++v)
        out.log_probs(b, v) = s.step < steps ? s.log_probs(b, s.step, v) : (v == Vocab::eos ? 0.0f : -INFINITY);
    ++s.step;
    return out;
  }

 private:
  Var encode(const VectorBatch& src, const ForwardContext& context, std::vector<Var>* weights) const {
    if (convolution_) return (*convolution_)(src.tokens, src.lens, context);
    return (*attention_)(src.tokens, ValidLens(src.lens), context, weights);
  }

  std::optional<TransformerEncoder> attention_;
  std::optional<ConvolutionEncoder> convolution_;
  std::optional<Linear> output_;
};

}  // namespace

void register_model_encoder_tagger(Registry<Model, ModelArgs>& r) {
  r.add<EncoderTagger>("encoder_tagger", "an encoder alone (self-attention, optionally windowed, or convolution), one prediction per position");
}

}  // namespace attn
