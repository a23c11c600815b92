// The shared machinery of sequence-to-sequence models (seq2seq with or without attention,
// Transformer): teacher-forced training loss, evaluation metrics, and decoding — greedy and
// beam search — on top of two hooks a model implements: start() encodes sources, step()
// advances the decoder by one token and reports that step's attention weights.
#pragma once

#include <functional>
#include <memory>

#include "attnlab/models/model.hpp"
#include "attnlab/nn/forward_context.hpp"

namespace attn {

// A model's decoder state for a batch of rows (encoder outputs, recurrent state or prefix).
class DecoderState {
 public:
  virtual ~DecoderState() = default;
  // The state of rows `rows` (in that order, repeats allowed): beam search reorders hypotheses.
  virtual std::unique_ptr<DecoderState> select(const std::vector<std::size_t>& rows) const = 0;
  // Attention computed once per source (e.g. encoder self-attention) of row `row`, by name:
  // [layer, head, n_q, n_k].
  virtual NamedTensors source_attention(std::size_t row) const {
    (void)row;
    return {};
  }
  // The memory its key/value caches take (0: a decoder without one).
  virtual std::size_t cache_bytes() const { return 0; }
};

struct DecodeStep {
  Tensor log_probs;  // [B, V]
  // Attention of this step's query, by name: [B, layer, head, n_k] (n_k may grow per step).
  NamedTensors attention;
};

struct DecodeOptions {
  std::size_t max_len = 10;   // decoding steps at most
  std::size_t beam = 1;       // 1 = greedy
  double alpha = 0.75;        // beam length penalty: score = log P / L^alpha (d2l)
  // false: decoding runs all max_len steps, as decoding benchmarks with a fixed output length
  // do (attnlab-bench W7); the beam then always keeps `beam` live hypotheses. The answer is
  // the same tokens up to the first <eos>.
  bool stop_at_eos = true;
};

struct Translation {
  std::vector<int> tokens;  // without <eos>
  double log_prob = 0.0;
  double score = 0.0;       // log_prob / L^alpha for beam search
  NamedTensors attention;  // name -> [layer, head, steps, n_k]
  std::size_t cache_bytes = 0;  // the decoder's key/value caches at the end (all beams)
};

class SequenceModel : public Model {
 public:
  // The decoder inputs of step t [B, 1], given the logits of step t - 1 [B, 1, V] (null at t = 0).
  using InputFeed = std::function<IntTensor(std::size_t t, const Tensor* previous_logits)>;

  explicit SequenceModel(const ModelArgs& args);

  std::size_t train_size() const override { return data_.train.size(); }
  // Masked cross-entropy (label-smoothed if asked) of the batch, teacher-forced; when the step's
  // teacher_forcing is below 1 and the model takes it, decoder inputs are sampled as
  // teacher_forcing.hpp describes.
  LossResult loss(const std::vector<std::size_t>& batch, const TrainingStep& step) override;
  bool takes_label_smoothing() const override { return true; }
  Metrics evaluate(bool full) override;
  // valid_* (or trainset_*) on the evaluation split; probe_exact_match, probe_bleu, ... on the probe set.
  Metrics evaluate_probe() override;
  std::size_t evaluation_size() const override { return eval_split().size(); }
  LossResult evaluation_loss(const std::vector<std::size_t>& rows) override;
  LossResult prediction_loss(const std::vector<std::size_t>& examples) override;
  std::vector<ExampleAttention> record_attention(const std::vector<std::size_t>& examples) override;

  // Greedy decoding of a batch of sources (one Translation per row).
  std::vector<Translation> greedy(const VectorBatch& src, std::size_t max_len, bool stop_at_eos = true);
  // Beam search of a batch of sources (one Translation per row), every sentence's beam decoded
  // in one batch of rows.
  std::vector<Translation> beam_search(const VectorBatch& src, const DecodeOptions& options);
  // One source sentence of token ids: greedy when options.beam == 1, else beam_search.
  Translation translate(const std::vector<int>& src_ids, const DecodeOptions& options);
  const SequenceData& data() const { return data_; }

 protected:
  // Teacher-forced logits [B, T, V] from sources (token ids [B, S] or vectors [B, S, d], with
  // valid lengths) and decoder inputs (<bos> + target[:-1]).
  virtual Var forward(const VectorBatch& src, const IntTensor& dec_input, const ForwardContext& context) = 0;
  // Logits [B, steps, V] decoded one step at a time, each step's inputs chosen by `feed` (for
  // scheduled sampling). Models that take teacher forcing override it.
  virtual Var forward_fed(const VectorBatch& src, std::size_t steps, const InputFeed& feed, const ForwardContext& context);
  virtual std::unique_ptr<DecoderState> start(const VectorBatch& src) = 0;
  virtual DecodeStep step(DecoderState& state, const std::vector<int>& tokens) = 0;

  // Refuses (at the dataset's name) data whose sources are vectors, for `who` ("model 'transformer'")
  // that reads tokens.
  void require_token_sources(const std::string& who) const;

  const SequenceData& data_;

 private:
  const SequenceSplit& eval_split() const;
  std::string eval_prefix() const;
  // Sum over `rows` of `split` of each row's mean token cross-entropy (teacher-forced).
  LossResult split_loss(const SequenceSplit& split, const std::vector<std::size_t>& rows);
  // The same for sources `src` and targets `tgt` [B, T] of lengths `tgt_lens`.
  LossResult teacher_forced_loss(const VectorBatch& src, const IntTensor& tgt, const IntTensor& tgt_lens);
  // Loss, perplexity and token accuracy of `split` (teacher-forced); with `full`, exact match and
  // BLEU of greedy decoding too; each named `prefix` + metric.
  Metrics evaluate_split(const SequenceSplit& split, const std::string& prefix, bool full);
  bool d2l_loss_;  // option loss: d2l (sum over the batch of per-sequence means) or token_mean
};

// Rows `rows` (along axis 0) of a decoder state's tensors (reordered by beam search): index_select,
// so gradients flow. (A split's rows: take_rows in data/dataset.hpp.)
Var take_rows(const Var& x, const std::vector<std::size_t>& rows);
// <bos> followed by target[:, :-1] (teacher forcing).
IntTensor decoder_inputs(const IntTensor& tgt);

}  // namespace attn
