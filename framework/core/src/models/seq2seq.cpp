// Model `seq2seq`: RNN encoder-decoder (d2l 10.7), without or with attention (d2l 11.4).
//   encoder:  h_t = cell(embed(x_t), h_{t-1})                      outputs [B, T, H], state s_T
//             embed(x) = E[x] for tokens, x W_in + b_in for vectors (speech frames)
//   decoder without attention:  c = top-layer final encoder state (the bottleneck)
//             s_t = cell([embed(y_{t-1}), c], s_{t-1})
//   decoder with attention (Bahdanau: mode qvv, scoring additive):
//             c_t = attention(query = top-layer s_{t-1}, keys = values = encoder outputs)
//             s_t = cell([c_t, embed(y_{t-1})], s_{t-1})
//             A mode that forms its keys from the query (vvv) attends to s_{t-1} alone and
//             never reads the source: its map is "decoder_state" (one key), not "cross".
//   output:   p(y_t) = softmax(s_t W_out + b)
// Training feeds y_{t-1} from the target (teacher forcing), or with training.teacher_forcing
// below 1 sometimes the model's own prediction (scheduled sampling, forward_fed).
// A bidirectional encoder gives the decoder states of size 2H: [forward; backward].
// Options: embed, hidden, layers, dropout, cell, cell_options.*, bidirectional, packed,
// init (xavier: every weight matrix but the embeddings Xavier-uniform, as d2l's init_seq2seq;
// pytorch: PyTorch's defaults), attention (none) or attention.mode / .scoring / .scoring_options.* /
// .normalizer / .normalizer_options.* (default softmax) /
// .mode_options.* / .heads, loss. scoring, normalizer and their _options may also be written at
// the model's level, as every other model takes them.
#include <cmath>

#include "attnlab/attention/attention.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/registry.hpp"
#include "attnlab/models/sequence_model.hpp"
#include "attnlab/nn/embedding.hpp"
#include "attnlab/nn/linear.hpp"
#include "attnlab/rnn/rnn.hpp"

namespace attn {
namespace {

// Where `options` mentions plugin `key`: the key itself or one of its `key`_options.*; "" if not.
std::string mention(const Options& options, const std::string& key) {
  if (options.has(key)) return key;
  for (const std::string& k : options.keys())
    if (k.rfind(key + "_options.", 0) == 0) return k;
  return "";
}

// The attention's scoring function or normalizer with its options: at the model's level (`<key>`,
// `<key>_options.*`: the keys every model takes, so one sweep can cross models) or under
// `attention.`; not in both places.
PluginChoice attention_plugin(const Options& model, const Options& attention, const std::string& key, const std::string& fallback) {
  const std::string here = mention(model, key), there = mention(attention, key);
  if (!here.empty() && !there.empty())
    throw SpecError(model.key_where(here), "'" + here + "' and 'attention." + there + "' both configure the attention's " + key +
                                               "; keep one place ('" + key + "' and its options, the keys every model takes, or 'attention." +
                                               key + "')");
  return plugin_choice(here.empty() ? attention : model, key, fallback);
}

struct Seq2SeqState final : DecoderState {
  Var enc_outputs;  // [B, T, H_dec]
  IntTensor src_lens;
  std::vector<CellState> states;  // decoder state per layer
  Var context;      // [B, 1, H_dec]: the fixed context without attention

  std::unique_ptr<DecoderState> select(const std::vector<std::size_t>& rows) const override {
    auto s = std::make_unique<Seq2SeqState>();
    s->enc_outputs = take_rows(enc_outputs, rows);
    s->src_lens = take_rows(src_lens, rows);
    for (const CellState& st : states) {
      CellState picked;
      for (const Var& part : st) picked.push_back(take_rows(part, rows));
      s->states.push_back(std::move(picked));
    }
    if (context.defined()) s->context = take_rows(context, rows);
    return s;
  }
};

RnnConfig rnn_config(const Options& o, std::size_t input, std::size_t hidden, const Options& cell_options) {
  RnnConfig c;
  c.cell = {o.get<std::string>("cell", "gru"), cell_options, o.where("cell")};
  c.input_size = input;
  c.hidden_size = hidden;
  c.layers = o.get<std::size_t>("layers", 2, 1, 64);
  c.dropout = o.get<float>("dropout", 0.0f, 0.0f, 0.99f);
  return c;
}

// d2l's init_seq2seq: Xavier-uniform for every weight matrix except the embedding tables.
void xavier_matrices(const ParamScope& scope) {
  scope.reinitialise([](const std::string& name, const Shape& shape) {
    const std::string table = "embedding.weight";
    return shape.size() >= 2 && !(name.size() >= table.size() && name.compare(name.size() - table.size(), table.size(), table) == 0);
  }, Init::xavier_uniform());
}

class Seq2Seq final : public SequenceModel {
 public:
  explicit Seq2Seq(const ModelArgs& a)
      : SequenceModel(a),
        embed_(a.options.get<std::size_t>("embed", 32, 1, 1 << 16)),
        hidden_(a.options.get<std::size_t>("hidden", 32, 1, 1 << 16)),
        bidirectional_(a.options.get<bool>("bidirectional", false)),
        packed_(a.options.get<bool>("packed", true)),
        init_(a.options.get<std::string>("init", "xavier")),
        dropout_(a.options.get<float>("dropout", 0.0f, 0.0f, 0.99f)),
        cell_options_(sub_options(a.options, "cell_options")),
        attention_(a.options.get<std::string>("attention", "on") != "none") {
    if (init_ != "xavier" && init_ != "pytorch")
      throw SpecError(a.options.where("init"), "option 'init' must be 'xavier' or 'pytorch', got '" + init_ + "'");
    if (a.options.has("attention") && a.options.text("attention") != "none")
      throw SpecError(a.options.where("attention"), "option 'attention' takes 'none' (no attention) or the keys "
                                                      "mode, scoring, scoring_options, normalizer, normalizer_options, mode_options, heads");
    const std::size_t dirs = bidirectional_ ? 2 : 1, dec_hidden = hidden_ * dirs;
    if (data_.src_dim > 0) src_input_.emplace(a.params.child("encoder").child("input"), data_.src_dim, embed_);
    else src_embed_.emplace(a.params.child("encoder").child("embedding"), data_.src_vocab.size(), embed_);
    RnnConfig enc = rnn_config(a.options, embed_, hidden_, cell_options_);
    enc.bidirectional = bidirectional_;
    encoder_.emplace(a.registries, a.params.child("encoder").child("rnn"), enc);
    tgt_embed_.emplace(a.params.child("decoder").child("embedding"), data_.tgt_vocab.size(), embed_);
    const Options att = sub_options(a.options, "attention");
    if (!attention_ && !att.keys().empty())
      throw SpecError(att.key_where(att.keys()[0]), "'attention: none' turns attention off, so 'attention." + att.keys()[0] +
                                                          "' would be ignored; remove one of them");
    for (const char* key : {"scoring", "normalizer"})
      if (const std::string given = mention(a.options, key); !attention_ && !given.empty())
        throw SpecError(a.options.key_where(given), "'attention: none' turns attention off, so '" + given +
                                                        "' would be ignored; remove one of them");
    if (attention_) {
      heads_ = att.get<std::size_t>("heads", 1, 1, 256);
      AttentionConfig c;
      c.mode = plugin_choice(att, "mode", "qvv");
      c.scoring = attention_plugin(a.options, att, "scoring", "additive");
      c.normalizer = attention_plugin(a.options, att, "normalizer", c.normalizer.name);
      c.dropout = dropout_;
      if (heads_ > 1) c.multi_head = MultiHead{heads_, dec_hidden, false};
      c.site = site("cross");
      attention_layer_.emplace(a.registries, a.params.child("decoder").child("attention"), c, dec_hidden, dec_hidden, dec_hidden);
      context_dim_ = attention_layer_->output_dim();
      if (attention_layer_->self_attention()) head_gates().rename(head_gates().find("cross", 0), "decoder_state");
      att.require_all_read("the attention of model 'seq2seq'");
    } else {
      context_dim_ = dec_hidden;
    }
    decoder_.emplace(a.registries, a.params.child("decoder").child("rnn"),
                     rnn_config(a.options, embed_ + context_dim_, dec_hidden, cell_options_));
    output_.emplace(a.params.child("decoder").child("output"), dec_hidden, data_.tgt_vocab.size(), true,
                    Init::uniform(1.0f / std::sqrt(static_cast<float>(dec_hidden))));
    if (init_ == "xavier") xavier_matrices(a.params);
  }

 protected:
  Var forward(const VectorBatch& src, const IntTensor& dec_input, const ForwardContext& context) override {
    auto state = encode(src, context);
    const Var y = (*tgt_embed_)(dec_input);  // [B, T, E]
    if (!attention_) {  // the context is the same at every step: one pass over all T
      const std::size_t steps = dec_input.shape()[1];
      const Var fixed = concat(std::vector<Var>(steps, state->context), 1);  // [B, T, H]
      const RnnResult r = (*decoder_)(concat({y, fixed}, 2), std::nullopt, state->states, context);
      return (*output_)(r.outputs);
    }
    std::vector<Var> outputs;
    for (std::size_t t = 0; t < dec_input.shape()[1]; ++t) outputs.push_back(advance(*state, slice(y, 1, t, t + 1), context).first);
    return (*output_)(concat(outputs, 1));  // [B, T, V]
  }

  // Scheduled sampling: one step at a time, each step's inputs from `feed` given the last logits.
  Var forward_fed(const VectorBatch& src, std::size_t steps, const InputFeed& feed, const ForwardContext& context) override {
    auto state = encode(src, context);
    std::vector<Var> logits;  // [B, 1, V] per step
    for (std::size_t t = 0; t < steps; ++t) {
      const IntTensor ids = feed(t, t == 0 ? nullptr : &logits.back().value());  // [B, 1]
      logits.push_back((*output_)(advance(*state, (*tgt_embed_)(ids), context).first));
    }
    return concat(logits, 1);  // [B, T, V]
  }

  bool takes_teacher_forcing() const override { return true; }

  std::unique_ptr<DecoderState> start(const VectorBatch& src) override {
    return encode(src, ForwardContext::evaluation());
  }

  DecodeStep step(DecoderState& base, const std::vector<int>& tokens) override {
    auto& state = static_cast<Seq2SeqState&>(base);
    IntTensor ids = IntTensor::from_shape({tokens.size(), 1});
    for (std::size_t b = 0; b < tokens.size(); ++b) ids(b, 0) = tokens[b];
    const Var y = (*tgt_embed_)(ids);  // [B, 1, E]
    DecodeStep s;
    const auto [out, weights] = advance(state, y, ForwardContext::evaluation());
    if (attention_) {
      const std::size_t batch = tokens.size(), nk = weights.shape().back();
      Tensor w = weights.value();  // [B, 1, n_k] or [B, heads, 1, n_k]
      w.reshape({batch, 1, heads_, nk});  // [B, layer, head, n_k]
      s.attention.emplace_back(attention_layer_->self_attention() ? "decoder_state" : "cross", std::move(w));
    }
    const Var logits = (*output_)(out);  // [B, 1, V]
    s.log_probs = log_softmax(reshape(logits, {tokens.size(), logits.dim(2)})).value();
    return s;
  }

 private:
  std::unique_ptr<Seq2SeqState> encode(const VectorBatch& src, const ForwardContext& context) {
    auto s = std::make_unique<Seq2SeqState>();
    const Var x = src_input_ ? (*src_input_)(constant(src.vectors)) : (*src_embed_)(src.tokens);  // [B, T, E]
    const RnnResult enc = (*encoder_)(x, packed_ ? ValidLens(src.lens) : std::nullopt, {}, context);
    s->enc_outputs = enc.outputs;  // [B, T, H * dirs]
    s->src_lens = src.lens;
    const std::size_t dirs = bidirectional_ ? 2 : 1;
    for (std::size_t l = 0; l < enc.states.size() / dirs; ++l) {
      if (dirs == 1) {
        s->states.push_back(enc.states[l]);
        continue;
      }
      CellState joined;  // [forward; backward] per state part
      for (std::size_t p = 0; p < enc.states[2 * l].size(); ++p)
        joined.push_back(concat({enc.states[2 * l][p], enc.states[2 * l + 1][p]}, 1));
      s->states.push_back(std::move(joined));
    }
    if (!attention_) {
      const Var& top = s->states.back().at(0);  // [B, H]
      s->context = reshape(top, {top.dim(0), 1, top.dim(1)});
    }
    return s;
  }

  // One decoder step from the embedded inputs y_t [B, 1, E]: the step's output [B, 1, H] and,
  // with attention, its weights (undefined without).
  std::pair<Var, Var> advance(Seq2SeqState& s, const Var& y_t, const ForwardContext& context) {
    if (attention_) return attend_and_step(s, y_t, context);
    const RnnResult r = (*decoder_)(concat({y_t, s.context}, 2), std::nullopt, s.states, context);
    s.states = r.states;
    return {r.outputs, Var()};
  }

  // One decoder step with attention: query = top-layer state, context from the encoder
  // outputs, input [context, embedding]. Returns the step's output [B, 1, H] and the weights.
  std::pair<Var, Var> attend_and_step(Seq2SeqState& s, const Var& y_t, const ForwardContext& context) {
    const Var& top = s.states.back().at(0);                        // [B, H]
    const Var query = reshape(top, {top.dim(0), 1, top.dim(1)});   // [B, 1, H]
    const AttentionSources sources{query, s.enc_outputs, s.enc_outputs};
    const AttentionResult a = (*attention_layer_)(sources, s.src_lens, context);
    const RnnResult r = (*decoder_)(concat({a.output, y_t}, 2), std::nullopt, s.states, context);
    s.states = r.states;
    return {r.outputs, a.weights_by_head()};
  }

  std::size_t embed_, hidden_;
  bool bidirectional_, packed_;
  std::string init_;
  float dropout_;
  Options cell_options_;
  bool attention_;
  std::size_t heads_ = 1, context_dim_ = 0;
  std::optional<Embedding> src_embed_, tgt_embed_;
  std::optional<Linear> src_input_;  // vector sources
  std::optional<Rnn> encoder_, decoder_;
  std::optional<Attention> attention_layer_;
  std::optional<Linear> output_;
};

}  // namespace

void register_model_seq2seq(Registry<Model, ModelArgs>& r) {
  r.add<Seq2Seq>("seq2seq", "RNN encoder-decoder, without attention or with any mode/scoring (Bahdanau)");
}

}  // namespace attn
