// Model `language_model`: a decoder-only Transformer that predicts every token from the ones
// before it (next-token prediction on text_corpus windows).
//   X = E[ids] (+ P)                     E [V, d] ~ N(0, 0.02^2), no sqrt(d) scaling; positions by
//                                        any positional scheme (positions.hpp; default learned):
//                                        added here (sinusoidal, learned) or inside every
//                                        attention (rope, alibi, t5_bias), or none
//   block attention_only:  X = X + MHA_causal(X)            (d2l-neu's attention-only TinyCharLM:
//                                                           no norm, no FFN, MHA without biases)
//   block gpt:             X = X + MHA_causal(LN(X));  X = X + dropout(FFN_gelu(LN(X)))  (pre-norm),
//                          and a last LN before the head
//   logits = X E^T  (tied: the embedding table reads the output)   or   X W + b
// Query i attends to keys 0..i; the loss is the mean cross-entropy of every next token, and the
// evaluation adds perplexity exp(loss) and bits per token loss / ln 2 (bits per character on
// characters) to the classifiers' loss and accuracy.
// Sampling text (text_generator.hpp) runs each block on the newest position only, its causal
// attention reading the earlier ones from a key/value cache.
// Options: d_model, heads, kv_heads (grouped-query attention: multi_head.hpp), layers, block,
// mlp_hidden, dropout, positional, positional_options.*, max_len, tied, scoring, normalizer,
// init (xavier, or pytorch: the attention's projections as PyTorch's nn.Linear draws them).
#include <cmath>

#include "attnlab/attention/positions.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/models/text_generator.hpp"
#include "attnlab/option_choice.hpp"
#include "attnlab/models/transformer_blocks.hpp"
#include "attnlab/nn/embedding.hpp"
#include "attnlab/nn/layer_norm.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

PreNormConfig lm_config(const Options& o) {
  PreNormConfig c;
  c.d_model = o.get<std::size_t>("d_model", 128, 1, 1 << 16);
  c.heads = o.get<std::size_t>("heads", 4, 1, 1024);
  c.mlp_hidden = o.get<std::size_t>("mlp_hidden", 4 * c.d_model, 1, 1 << 20);
  c.dropout = o.get<float>("dropout", 0.0f, 0.0f, 0.99f);
  c.scoring = plugin_choice(o, "scoring", c.scoring.name);
  c.normalizer = plugin_choice(o, "normalizer", c.normalizer.name);
  c.causal = true;
  if (c.d_model % c.heads != 0)
    throw SpecError(o.where("heads"), "option 'd_model' (" + std::to_string(c.d_model) + ") must be a multiple of 'heads' (" +
                                          std::to_string(c.heads) + ")");
  c.kv_heads = kv_heads_option(o, c.heads);
  c.pytorch_init = option_choice(o, "init", "xavier", {"xavier", "pytorch"}) == "pytorch";
  return c;
}

// `a`, when its data are token sequences with a label per token; else what would be.
const ModelArgs& token_sequences(const ModelArgs& a) {
  const auto* d = std::get_if<VectorData>(&a.data);
  if (!d || d->kind != InputKind::tokens || d->vocab.size() == 0 || d->train.labels.dimension() != 2)
    throw std::invalid_argument("model 'language_model' reads token sequences with the next token as each one's label: dataset "
                                "text_corpus, or sequence_task with option layout: decoder; this dataset gives " +
                                std::string(d ? "sets of " + std::string(to_string(d->kind)) + " with one label each" : "sources and targets, or regression data"));
  return a;
}

class LanguageModel final : public Classifier, public TextGenerator {
 public:
  explicit LanguageModel(const ModelArgs& a)
      : Classifier(token_sequences(a), "language_model", true, false),
        c_(lm_config(a.options)),
        gpt_(option_choice(a.options, "block", "attention_only", {"attention_only", "gpt"}) == "gpt"),
        max_len_(a.options.get<std::size_t>("max_len", std::max<std::size_t>(data_.max_len, 512), 1, 1 << 20)),
        tied_(a.options.get<bool>("tied", true)),
        embedding_(a.params.child("embedding"), data_.vocab.size(), c_.d_model, Init::normal(0.02f)) {
    if (max_len_ < data_.max_len)
      throw SpecError(a.options.where("max_len"), "option 'max_len' (" + std::to_string(max_len_) + ") must be at least the dataset's num_steps (" +
                                                      std::to_string(data_.max_len) + ")");
    if (!gpt_ && a.options.has("mlp_hidden"))
      throw SpecError(a.options.where("mlp_hidden"), "option 'mlp_hidden' is for 'block: gpt'; an attention-only block has no MLP");
    positions_.emplace(a.registries, positional_choice(a.options, "learned"), a.params.child("positional"),
                       PositionsOf{c_.d_model, c_.heads, max_len_, true});
    c_.positions = positions_->in_attention();
    const std::size_t layers = a.options.get<std::size_t>("layers", 2, 1, 64);
    for (std::size_t l = 0; l < layers; ++l) {
      const ParamScope s = a.params.child("block" + std::to_string(l));
      c_.site = site("decoder_self", l);
      if (gpt_) gpt_blocks_.emplace_back(a.registries, s, c_);
      else attention_blocks_.emplace_back(a.registries, s, c_);
    }
    if (gpt_) final_norm_.emplace(a.params.child("norm"), c_.d_model);
    if (!tied_) output_.emplace(a.params.child("output"), c_.d_model, data_.vocab.size(), true, torch_linear(c_.d_model));
  }

  Metrics evaluate(bool full) override {
    Metrics m = Classifier::evaluate(full);
    const std::string p = data_.valid.size() ? "valid_" : "trainset_";
    m[p + "ppl"] = std::exp(m.at(p + "loss"));
    m[p + "bits_per_token"] = m.at(p + "loss") / std::log(2.0);
    return m;
  }

 protected:
  Var logits(const VectorBatch& batch, const ForwardContext& context, std::vector<Var>* weights) override {
    Var x = embedding_(batch.tokens);  // [B, n, d]
    x = (*positions_)(x, context, c_.dropout);
    const auto keep = [&](const Var& w) {
      if (weights) weights->push_back(w);
    };
    for (const PreNormBlock& block : gpt_blocks_) {
      Var w;
      x = block(x, context, weights ? &w : nullptr);
      keep(w);
    }
    for (const CausalAttentionBlock& block : attention_blocks_) {
      Var w;
      x = block(x, context, weights ? &w : nullptr);
      keep(w);
    }
    return head(x);
  }

  std::size_t max_positions() const override { return positions_->max_positions(); }

  Generation generate(const std::vector<int>& prompt, const SamplingOptions& options, Rng& rng) override {
    if (prompt.empty()) throw std::invalid_argument("generate: the prompt needs at least one token");
    const NoGrad no_grad;
    const std::size_t layers = gpt_blocks_.size() + attention_blocks_.size(), total = prompt.size() + options.steps;
    std::vector<KeyValueCache> caches(layers);
    Generation g;
    if (options.attention) g.attention = xt::zeros<float>({layers, c_.heads, options.steps, total});
    IntTensor ids = IntTensor::from_shape({std::size_t(1), prompt.size()});
    std::copy(prompt.begin(), prompt.end(), ids.begin());
    for (std::size_t s = 0, first = 0; s < options.steps; ++s) {
      std::vector<Var> weights;  // per layer [1, heads, n, first + n]
      const Tensor logits = step(ids, first, caches, weights).value();  // [1, n, V]
      const std::size_t n = ids.shape()[1], vocab = logits.shape()[2];
      std::vector<float> last(logits.data() + (n - 1) * vocab, logits.data() + n * vocab);
      for (const int reserved : {Vocab::pad, Vocab::bos, Vocab::eos}) last[static_cast<std::size_t>(reserved)] = -INFINITY;  // never in a text
      g.tokens.push_back(sample_token(last.data(), vocab, options, rng));
      for (std::size_t l = 0; l < layers && options.attention; ++l)
        for (std::size_t h = 0; h < c_.heads; ++h)
          for (std::size_t k = 0; k < first + n; ++k) g.attention(l, h, s, k) = weights[l].value()(0, h, n - 1, k);
      first += n;
      ids = IntTensor::from_shape({std::size_t(1), std::size_t(1)});
      ids(0, 0) = g.tokens.back();
    }
    for (const KeyValueCache& c : caches) g.cache_bytes += c.bytes();
    if (!caches.empty() && caches[0].keys.defined()) g.cache_keys = caches[0].keys.shape();
    return g;
  }

  // logits [B, n, V] of the last block's output: X E^T (tied) or X W + b.
  Var head(Var x) const {
    if (final_norm_) x = (*final_norm_)(x);
    if (output_) return (*output_)(x);
    const std::size_t b = x.dim(0), n = x.dim(1), v = data_.vocab.size();
    return reshape(matmul(reshape(x, {b * n, c_.d_model}), transpose(embedding_.table(), 0, 1)), {b, n, v});
  }

  // Decoding: the logits of positions [first, first + n) given ids [1, n], each block reading
  // the earlier positions from its cache; every block's weights [1, heads, n, first + n].
  Var step(const IntTensor& ids, std::size_t first, std::vector<KeyValueCache>& caches, std::vector<Var>& weights) const {
    const ForwardContext eval = ForwardContext::evaluation();
    Var x = embedding_(ids);
    x = (*positions_)(x, eval, 0.0f, first);
    std::size_t l = 0;
    for (const PreNormBlock& block : gpt_blocks_) weights.emplace_back(), x = block.step(x, caches[l++], &weights.back());
    for (const CausalAttentionBlock& block : attention_blocks_) weights.emplace_back(), x = block.step(x, caches[l++], &weights.back());
    return head(x);
  }

  // Query i's attention is causal: recorded as "decoder_self", which the attention metrics
  // measure over keys 0..i.
  std::vector<std::pair<std::string, Tensor>> maps_of(const std::vector<Var>& weights) const override {
    return {{"decoder_self", stack_layers(weights)}};
  }

 private:
  PreNormConfig c_;
  bool gpt_;
  std::size_t max_len_;
  bool tied_;
  Embedding embedding_;
  std::optional<Positions> positions_;
  std::vector<PreNormBlock> gpt_blocks_;
  std::vector<CausalAttentionBlock> attention_blocks_;
  std::optional<LayerNorm> final_norm_;
  std::optional<Linear> output_;
};

}  // namespace

void register_model_language_model(Registry<Model, ModelArgs>& r) {
  r.add<LanguageModel>("language_model", "a decoder-only Transformer predicting each next token (attention-only as d2l-neu, or GPT blocks)");
}

}  // namespace attn
