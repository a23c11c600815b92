#include "attnlab/models/classifier.hpp"
#include "attnlab/models/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/models/transformer_blocks.hpp"

namespace attn {
namespace {


// The labelled items of a batch: logits [k, C] and their labels [k]. Per set, every set is
// one (logits [B, C], labels [B]); per vector, the vectors whose label is not -1 (logits
// [B, n, C], labels [B, n]).
struct Labelled {
  Var logits;
  IntTensor labels;
  std::vector<std::size_t> input;  // the input (row of the batch) each item belongs to
};

Labelled labelled(const Var& logits, const IntTensor& labels) {
  if (logits.ndim() == 2) {
    std::vector<std::size_t> input(labels.size());
    std::iota(input.begin(), input.end(), std::size_t{0});
    return {logits, labels, input};
  }
  const std::size_t classes = logits.dim(2), n = logits.dim(1);
  std::vector<int> rows, kept;
  std::vector<std::size_t> input;
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels.data()[i] >= 0) rows.push_back(static_cast<int>(i)), kept.push_back(labels.data()[i]), input.push_back(i / n);
  IntTensor index = IntTensor::from_shape({rows.size()}), out = IntTensor::from_shape({kept.size()});
  std::copy(rows.begin(), rows.end(), index.begin());
  std::copy(kept.begin(), kept.end(), out.begin());
  return {index_select(reshape(logits, {labels.size(), classes}), 0, index), out, input};
}

// Cross-entropy per item of logits [k, C] against labels [k]: the sequence loss with one step.
Var cross_entropy(const Var& logits, const IntTensor& labels) {
  const std::size_t b = logits.dim(0), c = logits.dim(1);
  IntTensor steps = IntTensor::from_shape({b, 1}), ones = IntTensor::from_shape({b});
  std::copy(labels.begin(), labels.end(), steps.begin());
  std::fill(ones.begin(), ones.end(), 1);
  return masked_cross_entropy(reshape(logits, {b, 1, c}), steps, ones);  // [k]
}

// Class names of `labels` joined by spaces ("?" for -1): a set's labels as text.
std::string class_names(const std::vector<std::string>& classes, const int* labels, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i ? " " : "") + (labels[i] < 0 ? std::string("?") : classes[static_cast<std::size_t>(labels[i])]);
  return out;
}

std::size_t argmax(const float* p, std::size_t n) { return static_cast<std::size_t>(std::max_element(p, p + n) - p); }

// A class name as a metric-name part: spaces become underscores ("ankle boot" -> ankle_boot).
std::string metric_part(std::string name) {
  std::replace(name.begin(), name.end(), ' ', '_');
  return name;
}

}  // namespace

const VectorData& vector_data(const ModelArgs& args, const std::string& model) {
  if (const auto* d = std::get_if<VectorData>(&args.data)) {
    if (d->classes.empty())
      throw std::invalid_argument("model '" + model + "' predicts one class per input, but the dataset has no classes");
    return *d;
  }
  throw std::invalid_argument("model '" + model + "' predicts one label per input and needs a dataset of labelled sets "
                              "(fashion_mnist, or sequence_task with a classification task such as 'sorted' or 'majority'); "
                              "this dataset gives sequence or regression targets (for those: seq2seq, transformer, encoder_tagger, nadaraya_watson)");
}

Classifier::Classifier(const ModelArgs& args, const std::string& model, bool per_vector, bool per_class)
    : data_(vector_data(args, model)), per_class_(per_class) {
  if (per_vector != (data_.train.labels.dimension() == 2))
    throw std::invalid_argument("model '" + model + "' gives " + (per_vector ? "a label per vector (node)" : "one label per input") +
                                ", but this dataset labels " + (per_vector ? "whole inputs (for those: encoder_classifier, vit)"
                                                                           : "each vector: a graph's nodes or a text's next tokens (for those: gat, language_model)"));
}

LossResult Classifier::loss(const std::vector<std::size_t>& batch, const TrainingStep& step) {
  const VectorBatch b = data_.train.sets->batch(batch);
  const Labelled items = labelled(logits(b, ForwardContext::training(step.rng), nullptr), take_rows(data_.train.labels, batch));
  const std::size_t k = items.labels.size();
  if (k == 0) throw std::invalid_argument("a training batch holds no labelled item");
  const Var total = sum(cross_entropy(items.logits, items.labels));
  LossResult r;
  r.loss = total / static_cast<float>(k);
  r.sum = static_cast<double>(total.item());
  r.count = static_cast<double>(k);
  return r;
}

LossResult Classifier::evaluation_loss(const std::vector<std::size_t>& rows) { return split_loss(eval_split(), rows); }

LossResult Classifier::prediction_loss(const std::vector<std::size_t>& examples) {
  return split_loss(probe_split(data_), examples, true);
}

LossResult Classifier::split_loss(const VectorSplit& split, const std::vector<std::size_t>& rows, bool predicted) {
  Labelled items = labelled(logits(split.sets->batch(rows), ForwardContext::evaluation_without_weights(), nullptr), take_rows(split.labels, rows));
  const std::size_t classes = items.logits.dim(1);
  if (predicted)
    for (std::size_t i = 0; i < items.labels.size(); ++i) items.labels(i) = static_cast<int>(argmax(items.logits.value().data() + i * classes, classes));
  std::vector<double> per_row(rows.size(), 0.0);
  for (const std::size_t i : items.input) per_row[i] += 1.0;
  Tensor share = Tensor::from_shape({items.input.size()});  // 1 / (the items of the item's row)
  for (std::size_t k = 0; k < items.input.size(); ++k) share(k) = static_cast<float>(1.0 / per_row[items.input[k]]);
  const Var ce = cross_entropy(items.logits, items.labels);
  LossResult r;
  r.loss = sum(ce * constant(std::move(share)));
  r.sum = static_cast<double>(sum(ce).item());
  r.count = static_cast<double>(items.input.size());
  return r;
}

Metrics Classifier::evaluate(bool) {
  const VectorSplit& split = eval_split();
  const std::size_t classes = data_.classes.size();
  const bool breakdown = per_class_ && classes <= max_class_breakdown;
  confusion_ = breakdown ? Tensor(xt::zeros<float>({classes, classes})) : Tensor();
  double loss = 0.0, items = 0.0, correct = 0.0, answers = 0.0, answered = 0.0;
  // (an image's or a spectrogram's vectors are not what its model attends over: 256 of them)
  const std::size_t per_batch = evaluation_batch(data_.kind == InputKind::tokens ? data_.max_len : 0);
  for (std::size_t first = 0; first < split.size(); first += per_batch) {
    std::vector<std::size_t> rows(std::min(per_batch, split.size() - first));
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = first + i;
    const Labelled out = labelled(logits(split.sets->batch(rows), ForwardContext::evaluation_without_weights(), nullptr), take_rows(split.labels, rows));
    loss += static_cast<double>(sum(cross_entropy(out.logits, out.labels)).item());
    std::vector<int> right(rows.size(), -1);  // per input: -1 nothing labelled, 1 all right, 0 not
    for (std::size_t i = 0; i < out.labels.size(); ++i) {
      const std::size_t truth = static_cast<std::size_t>(out.labels(i)), guess = argmax(out.logits.value().data() + i * classes, classes);
      correct += truth == guess ? 1.0 : 0.0;
      int& whole = right[out.input[i]];
      whole = (whole != 0 && truth == guess) ? 1 : 0;
      if (breakdown) confusion_(truth, guess) += 1.0f;
    }
    for (const int r : right) answers += r >= 0 ? 1.0 : 0.0, answered += r == 1 ? 1.0 : 0.0;
    items += static_cast<double>(out.labels.size());
  }
  evaluated_ = true;
  const std::string prefix = data_.valid.size() ? "valid_" : "trainset_";
  const double n = std::max(items, 1.0);
  Metrics m;
  for (std::size_t c = 0; breakdown && c < classes; ++c) {
    double in_class = 0.0;
    for (std::size_t p = 0; p < classes; ++p) in_class += confusion_(c, p);
    m[prefix + "accuracy." + metric_part(data_.classes[c])] = in_class > 0 ? confusion_(c, c) / in_class : std::nan("");
  }
  m[prefix + "loss"] = loss / n;
  m[prefix + "accuracy"] = correct / n;
  if (data_.labels_answer) m[prefix + "exact_match"] = answered / std::max(answers, 1.0);
  return m;
}

NamedTensors Classifier::evaluation_arrays() const {
  if (confusion_.dimension() != 2) return {};
  return {{"confusion", confusion_}};
}

NamedTensors Classifier::plot_data() {
  if (!evaluated_) evaluate(true);
  NamedTensors out = evaluation_arrays();
  const VectorSplit& probe = probe_split(data_);
  if (data_.kind == InputKind::image && probe.size() && data_.dim == 1) {  // what the pictures lay the attention over
    std::vector<std::size_t> rows(probe.size());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    Tensor images = probe.sets->batch(rows).vectors;  // [k, H*W, 1]
    images.reshape({rows.size(), data_.grid_rows, data_.grid_cols});
    out.emplace_back("probe_images", std::move(images));
  }
  if (data_.kind == InputKind::frames && probe.size()) {  // the spectrograms the attention is drawn above
    std::vector<std::size_t> rows(probe.size());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    const VectorBatch b = probe.sets->batch(rows);
    Tensor lengths = Tensor::from_shape({rows.size()});
    std::copy(b.lens.begin(), b.lens.end(), lengths.begin());
    out.emplace_back("probe_frames", b.vectors);   // [k, n, mels]
    out.emplace_back("probe_times", b.times);      // [k, n] seconds
    out.emplace_back("probe_lengths", std::move(lengths));
  }
  return out;
}

std::vector<std::string> Classifier::position_labels(const VectorBatch& batch, std::size_t row) const {
  const std::size_t n = static_cast<std::size_t>(batch.lens(row));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (data_.kind == InputKind::tokens) out.push_back(data_.vocab.token(batch.tokens(row, i)));
    else if (data_.grid_cols) out.push_back("(" + std::to_string(i / data_.grid_cols) + "," + std::to_string(i % data_.grid_cols) + ")");
    else out.push_back(std::to_string(i));
  }
  return out;
}

std::vector<Classifier::Prediction> Classifier::predict(const VectorSplit& split, const std::vector<std::size_t>& rows) {
  if (rows.empty()) return {};
  const VectorBatch batch = split.sets->batch(rows);
  std::vector<Var> weights;
  const Tensor probs = softmax(logits(batch, ForwardContext::evaluation(), &weights)).value();  // [B, (n,) C]
  const std::size_t classes = data_.classes.size(), per_row = probs.size() / rows.size() / classes;  // labels per set
  const std::vector<std::pair<std::string, Tensor>> maps = weights.empty() ? decltype(maps){} : maps_of(weights);
  const IntTensor gold = take_rows(split.labels, rows);
  std::vector<Prediction> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Prediction& p = out[i];
    std::vector<int> predicted;
    for (std::size_t j = 0; j < per_row; ++j) {
      const float* row = probs.data() + (i * per_row + j) * classes;
      p.probabilities.emplace_back(row, row + classes);
      p.labels.push_back(argmax(row, classes));
      predicted.push_back(static_cast<int>(p.labels.back()));
    }
    ExampleAttention& ex = p.attention;
    ex.example = rows[i];
    ex.source = split.sets->describe(rows[i]);
    const std::size_t gold_per_row = gold.size() / rows.size();  // typed inputs have no label per vector
    ex.target = class_names(data_.classes, gold.data() + i * gold_per_row, std::min(per_row, gold_per_row));
    ex.prediction = class_names(data_.classes, predicted.data(), per_row);
    for (const auto& [name, stacked] : maps) {  // [B, layer, head, n_q, n_k]
      const std::size_t per = stacked.size() / stacked.shape()[0];
      Tensor w = Tensor::from_shape({stacked.shape()[1], stacked.shape()[2], stacked.shape()[3], stacked.shape()[4]});
      std::copy_n(stacked.data() + i * per, per, w.data());
      std::vector<std::string> labels = position_labels(batch, i);
      labels.resize(w.shape()[3], "<pad>");
      ex.maps.push_back({name, std::move(w), labels, labels, {}, {}, {}});
    }
  }
  return out;
}

std::vector<std::pair<std::string, Tensor>> Classifier::maps_of(const std::vector<Var>& weights) const {
  return {{"encoder_self", stack_layers(weights)}};
}

std::vector<ExampleAttention> Classifier::record_attention(const std::vector<std::size_t>& examples) {
  const VectorSplit& split = probe_split(data_);
  std::vector<std::size_t> rows;
  for (std::size_t e : examples)
    if (e < split.size()) rows.push_back(e);
  std::vector<ExampleAttention> out;
  for (Prediction& p : predict(split, rows)) out.push_back(std::move(p.attention));
  return out;
}

}  // namespace attn
