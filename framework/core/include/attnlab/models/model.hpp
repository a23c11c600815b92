// Models: a registered plugin kind, assembled from the other plugins by name, so a scoring
// function, cell or mode named in a spec changes the model without code changes.
//
// The trainer drives a model through this interface: loss() on a batch of training examples
// (training mode: dropout on), evaluate() on held-out data (evaluation mode), and
// record_attention() for the examples whose attention maps a run keeps.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/attention/head_gates.hpp"
#include "attnlab/data/dataset.hpp"
#include "attnlab/nn/params.hpp"
#include "attnlab/options.hpp"

namespace attn {

struct Registries;

struct ModelArgs {
  const Registries& registries;
  ParamScope params;
  const Options& options;  // the spec's model.* keys (without the "model." prefix)
  const Data& data;        // loaded data: vocabularies, sizes, the splits
};

using Metrics = std::map<std::string, double>;

struct LossResult {
  Var loss;           // scalar to differentiate
  double sum = 0.0;   // what the epoch's reported loss adds up: reported = sum of sums / sum of counts
  double count = 0.0;
};

// One attention map of one example: weights [layer, head, n_q, n_k] with labels of the queries
// (target tokens, or x positions) and keys (source tokens, or x positions).
struct AttentionMap {
  std::string name;  // "cross", "encoder_self", "decoder_self", "kernel"
  Tensor weights;
  std::vector<std::string> queries, keys;
  std::vector<float> query_positions, key_positions;  // x values (regression), else empty
  // Per query, the key it should attend by the task's known alignment (copy, reverse, sort);
  // -1 where there is none; empty when the task has no known alignment.
  std::vector<int> gold_keys;
};

struct ExampleAttention {
  std::size_t example = 0;                          // index in the probe set (SequenceData::probe)
  std::string source, target, prediction;          // readable text (empty for regression)
  std::vector<AttentionMap> maps;
};

// What one training update asks of the model's loss besides the batch.
struct TrainingStep {
  Rng& rng;                      // the run's training stream: dropout, scheduled sampling
  float label_smoothing = 0.0f;  // eps of the smoothed cross-entropy (if takes_label_smoothing)
  double teacher_forcing = 1.0;  // P(the decoder is fed the gold previous token) (if takes_teacher_forcing)
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::size_t train_size() const = 0;
  // Loss on training examples `batch` (indices into the training split), training mode.
  virtual LossResult loss(const std::vector<std::size_t>& batch, const TrainingStep& step) = 0;
  // The training options this model's loss honours; a trainer refuses the others.
  virtual bool takes_label_smoothing() const { return false; }
  virtual bool takes_teacher_forcing() const { return false; }
  // Metrics on the evaluation split; `full` adds the expensive ones (decoding, BLEU).
  virtual Metrics evaluate(bool full) = 0;
  // The examples of the evaluation split, and the loss on its examples `rows` in evaluation
  // mode (no dropout) with its graph, to differentiate (head importance): `loss` is the SUM over
  // the rows of each row's own mean loss L_b, so the gradient with respect to an input of row b
  // alone (a per-example gate) is dL_b/d(input). 0 and an error: the model has none.
  virtual std::size_t evaluation_size() const { return 0; }
  // The decoding metrics (exact match, BLEU) of the probe set, named probe_*; empty for a model
  // that decodes no sequences. Cheap enough for every epoch (training.decode_metrics: probe).
  virtual Metrics evaluate_probe() { return {}; }
  virtual LossResult evaluation_loss(const std::vector<std::size_t>& rows) {
    (void)rows;
    throw std::logic_error("this model has no loss on evaluation examples");
  }
  // The same loss on examples of the probe set (the examples a run records and draws) with the
  // model's own predictions as their targets (its class, its tags, its next tokens; greedy
  // decoding for a model that decodes): what gradient-weighted rollout explains
  // (attention_relevance.hpp).
  virtual LossResult prediction_loss(const std::vector<std::size_t>& examples) {
    (void)examples;
    throw std::logic_error("this model has no loss of its own predictions");
  }
  // Attention maps of evaluation examples (decoded with greedy search for sequence models).
  virtual std::vector<ExampleAttention> record_attention(const std::vector<std::size_t>& examples) = 0;
  // False when there is nothing to learn (e.g. Nadaraya-Watson with a fixed kernel).
  virtual bool trainable() const { return true; }
  // Memory evaluate() and record_attention() take that a training batch does not (a
  // Nadaraya-Watson model's test grid against every training point), estimated before training
  // so that a run too big for its memory is refused (footprint.hpp). Empty: nothing beyond it.
  virtual Footprint evaluation_footprint() const { return {}; }
  // Arrays of the last evaluate() a run keeps for every evaluated epoch, beside its metrics (a
  // classifier's confusion matrix). Empty for most models.
  virtual NamedTensors evaluation_arrays() const { return {}; }
  // Arrays a picture of this model needs, saved with the run (Nadaraya-Watson: the training
  // points, the test grid, the truth and the prediction). Empty for most models.
  virtual NamedTensors plot_data() { return {}; }
  // The model's attention layers as sites, and the gates on their heads (head_gates.hpp): what
  // ablation and head importance act through. A model without heads to study has no sites.
  HeadGates& head_gates() { return head_gates_; }

 protected:
  // Where an attention layer of map `map`, layer `layer` sits: given to it in AttentionConfig.
  SiteTag site(const std::string& map, std::size_t layer = 0) { return {&head_gates_, map, layer, 0}; }

 private:
  HeadGates head_gates_;
};

}  // namespace attn
