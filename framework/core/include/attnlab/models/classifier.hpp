// Labels of sets of vectors: the shared machinery of the classifiers over data/vector_sets.hpp,
// one label per set (`vit`, `encoder_classifier`: logits [B, C], labels [N]) or one per vector
// (`gat`'s nodes: logits [B, n, C], labels [N, n], -1 where a vector has none in the split).
// A model implements logits(); this class trains it with the mean cross-entropy of the labelled
// items of the batch, and evaluates it:
//   valid_loss               mean cross-entropy over the evaluation split
//   valid_accuracy           fraction of sets whose argmax logit is their label
//   valid_accuracy.<class>   the same over the sets of one class (recall of that class)
//   the confusion matrix     C[true, predicted] (counts), kept for plot_data ("confusion")
// (the last two for at most max_class_breakdown classes: a word vocabulary's would be millions)
// The attention recorded for a probe example is every layer's self-attention over the set.
#pragma once

#include "attnlab/models/model.hpp"
#include "attnlab/nn/forward_context.hpp"

namespace attn {

class Classifier : public Model {
 public:
  // per_vector: the model gives a label per vector (logits [B, n, C]), else one per set.
  // per_class: keep per-class accuracies and the confusion matrix (up to max_class_breakdown
  // classes; a language model's next tokens are not classes a reader compares).
  Classifier(const ModelArgs& args, const std::string& model, bool per_vector = false, bool per_class = true);

  std::size_t train_size() const override { return data_.train.size(); }
  LossResult loss(const std::vector<std::size_t>& batch, const TrainingStep& step) override;
  Metrics evaluate(bool full) override;
  std::size_t evaluation_size() const override { return eval_split().size(); }
  LossResult evaluation_loss(const std::vector<std::size_t>& rows) override;
  LossResult prediction_loss(const std::vector<std::size_t>& examples) override;
  std::vector<ExampleAttention> record_attention(const std::vector<std::size_t>& examples) override;
  // "confusion": the last evaluation's confusion matrix [classes, classes] (true, predicted);
  // for grey images, "probe_images" [k, H, W]: the probe set's images as the model saw them;
  // for frames, "probe_frames" [k, n, d], "probe_times" [k, n] and "probe_lengths" [k]: the
  // probe set's features, their times and valid lengths.
  NamedTensors plot_data() override;
  // "confusion": the confusion matrix of the last evaluate(), kept per evaluated epoch.
  NamedTensors evaluation_arrays() const override;
  // Classes beyond which per-class accuracies and the confusion matrix are not kept.
  static constexpr std::size_t max_class_breakdown = 64;

  struct Prediction {
    std::vector<std::size_t> labels;                // one per set, or one per vector
    std::vector<std::vector<float>> probabilities;  // [classes] for each label
    ExampleAttention attention;
  };
  // The classes of sets `rows` of `split`, with their probabilities and attention.
  std::vector<Prediction> predict(const VectorSplit& split, const std::vector<std::size_t>& rows);
  const VectorData& data() const { return data_; }

 protected:
  // Logits [B, classes] (or [B, n, classes]) of a batch of sets. With `weights`, each layer's attention
  // [B, heads, n_q, n_k] is appended to it.
  virtual Var logits(const VectorBatch& batch, const ForwardContext& context, std::vector<Var>* weights) = 0;
  // Names of the positions the attention runs over for set `row` of `batch` (a <cls> a model
  // prepends, the tokens, "(r, c)" for a pixel or patch).
  virtual std::vector<std::string> position_labels(const VectorBatch& batch, std::size_t row) const;
  // The recorded maps of the layers' weights ([B, heads, n, n] each), by name, as
  // [B, layer, head, n, n]. Default: one map "encoder_self" of every layer (same head counts).
  virtual std::vector<std::pair<std::string, Tensor>> maps_of(const std::vector<Var>& weights) const;

  const VectorData& data_;

 private:
  const VectorSplit& eval_split() const { return data_.valid.size() ? data_.valid : data_.train; }
  // Sum over `rows` of `split` of the mean cross-entropy of each row's labelled items (with
  // `predicted`: against the model's own argmax instead of the labels).
  LossResult split_loss(const VectorSplit& split, const std::vector<std::size_t>& rows, bool predicted = false);
  Tensor confusion_;  // [classes, classes] of the last evaluation (none beyond max_class_breakdown)
  bool evaluated_ = false;
  bool per_class_;
};

// The data a classifier reads: the VectorData of `args`, or a clear error naming `model`.
const VectorData& vector_data(const ModelArgs& args, const std::string& model);

}  // namespace attn
