#include "attnlab/models/sequence_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/models/metrics.hpp"

namespace attn {
namespace {

const SequenceData& sequence_data(const ModelArgs& args, const char* what) {
  if (const auto* d = std::get_if<SequenceData>(&args.data)) return *d;
  if (std::holds_alternative<VectorData>(args.data))
    throw std::invalid_argument(std::string(what) + " predicts a target sequence, but this dataset gives one label per input "
                                "(for those: encoder_classifier, or vit for images)");
  throw std::invalid_argument(std::string(what) + " needs a sequence dataset (sequence_task or parallel_corpus)");
}

int argmax_row(const Tensor& t, std::size_t row) {
  const std::size_t v = t.shape()[1];
  const float* p = t.data() + row * v;
  return static_cast<int>(std::max_element(p, p + v) - p);
}

// Stacks one row's per-step attention [layer, head, n_k_t] into [layer, head, steps, max n_k].
NamedTensors stack_steps(const std::vector<const NamedTensors*>& steps) {
  NamedTensors out;
  if (steps.empty()) return out;
  for (std::size_t a = 0; a < steps[0]->size(); ++a) {
    std::size_t nk = 0;
    for (const NamedTensors* s : steps) nk = std::max(nk, (*s)[a].second.shape()[2]);
    const Tensor& first = (*steps[0])[a].second;
    const std::size_t layers = first.shape()[0], heads = first.shape()[1];
    Tensor w = xt::zeros<float>({layers, heads, steps.size(), nk});
    for (std::size_t t = 0; t < steps.size(); ++t) {
      const Tensor& s = (*steps[t])[a].second;
      for (std::size_t l = 0; l < layers; ++l)
        for (std::size_t h = 0; h < heads; ++h)
          for (std::size_t k = 0; k < s.shape()[2]; ++k) w(l, h, t, k) = s(l, h, k);
    }
    out.emplace_back((*steps[0])[a].first, std::move(w));
  }
  return out;
}

// Row b of a step's attention [B, layer, head, n_k] -> [layer, head, n_k].
Tensor row_of(const Tensor& t, std::size_t b) {
  const std::size_t per = t.size() / t.shape()[0];
  Tensor out = Tensor::from_shape({t.shape()[1], t.shape()[2], t.shape()[3]});
  std::copy_n(t.data() + b * per, per, out.data());
  return out;
}

}  // namespace

Var take_rows(const Var& x, const std::vector<std::size_t>& rows) {
  IntTensor idx = IntTensor::from_shape({rows.size()});
  for (std::size_t i = 0; i < rows.size(); ++i) idx(i) = static_cast<int>(rows[i]);
  return index_select(x, 0, idx);
}

IntTensor decoder_inputs(const IntTensor& tgt) {
  const std::size_t n = tgt.shape()[0], steps = tgt.shape()[1];
  IntTensor out = IntTensor::from_shape({n, steps});
  for (std::size_t i = 0; i < n; ++i) {
    out(i, 0) = Vocab::bos;
    for (std::size_t t = 1; t < steps; ++t) out(i, t) = tgt(i, t - 1);
  }
  return out;
}

SequenceModel::SequenceModel(const ModelArgs& args) : data_(sequence_data(args, "this model")) {
  const std::string loss = args.options.get<std::string>("loss", "token_mean");
  if (loss != "token_mean" && loss != "d2l")
    throw SpecError(args.options.where("loss"), "option 'loss' must be 'token_mean' (cross-entropy averaged over "
                                                  "valid target tokens) or 'd2l' (d2l's sum over the batch of per-sequence means); got '" + loss + "'");
  d2l_loss_ = loss == "d2l";
}

void SequenceModel::require_token_sources(const std::string& who) const {
  if (data_.src_dim > 0)
    throw std::invalid_argument(who + " reads sources of tokens, and this dataset's sources are vectors "
                                "(speech frames); seq2seq reads both");
}

Var SequenceModel::forward_fed(const VectorBatch&, std::size_t, const InputFeed&, const ForwardContext&) {
  throw Error("this model is always trained with teacher forcing (it does not take training.teacher_forcing)");
}

namespace {

// Scheduled sampling's feed: row b's input at step t is the gold y_{t-1} with probability
// `ratio` (one draw per row and step), else the argmax of its step t-1 logits; <bos> at t = 0.
SequenceModel::InputFeed sampled_inputs(const IntTensor& tgt, double ratio, Rng& rng) {
  return [&tgt, ratio, &rng](std::size_t t, const Tensor* previous) {
    const std::size_t rows = tgt.shape()[0];
    IntTensor ids = IntTensor::from_shape({rows, 1});
    for (std::size_t b = 0; b < rows; ++b) {
      if (t == 0) {
        ids(b, 0) = Vocab::bos;
        continue;
      }
      const bool gold = static_cast<double>(rng.uniform()) < ratio;
      const std::size_t vocab = previous->shape()[2];
      const float* l = previous->data() + b * vocab;
      ids(b, 0) = gold ? tgt(b, t - 1) : static_cast<int>(std::max_element(l, l + vocab) - l);
    }
    return ids;
  };
}

}  // namespace

// Masked cross-entropy of the batch's logits; reported per valid target token.
LossResult SequenceModel::loss(const std::vector<std::size_t>& batch, const TrainingStep& step) {
  const VectorBatch src = source_rows(data_.train, batch);
  const IntTensor tgt = take_rows(data_.train.tgt, batch), tgt_lens = take_rows(data_.train.tgt_lens, batch);
  const ForwardContext context = ForwardContext::training(step.rng);
  const Var logits = step.teacher_forcing < 1.0  // [B, T, V]
                         ? forward_fed(src, tgt.shape()[1], sampled_inputs(tgt, step.teacher_forcing, step.rng), context)
                         : forward(src, decoder_inputs(tgt), context);
  const Var per_sequence = masked_cross_entropy(logits, tgt, tgt_lens, step.label_smoothing);  // [B], mean over T
  const double tokens = static_cast<double>(xt::sum(tgt_lens)());
  const double steps = static_cast<double>(tgt.shape()[1]);
  const Var total = sum(per_sequence);  // sum_b (1/T) sum_t ce
  LossResult r;
  r.loss = d2l_loss_ ? total : total * static_cast<float>(steps / std::max(tokens, 1.0));
  r.sum = static_cast<double>(total.item()) * steps;  // summed token cross-entropy
  r.count = tokens;
  return r;
}

LossResult SequenceModel::evaluation_loss(const std::vector<std::size_t>& rows) { return split_loss(eval_split(), rows); }

// The targets are the greedy decoding of each example, then <eos> (the maps recorded of it are
// of the same positions: <bos> and the prediction in, the prediction and <eos> out).
LossResult SequenceModel::prediction_loss(const std::vector<std::size_t>& examples) {
  const SequenceSplit& split = probe_split(data_);
  const VectorBatch src = source_rows(split, examples);
  const std::size_t steps = split.tgt.shape()[1];
  IntTensor tgt = xt::zeros<int>({examples.size(), steps}), tgt_lens = xt::zeros<int>({examples.size()});
  const std::vector<Translation> decoded = greedy(src, steps);
  for (std::size_t b = 0; b < examples.size(); ++b) {
    std::vector<int> tokens = decoded[b].tokens;
    tokens.push_back(Vocab::eos);
    tokens.resize(std::min(tokens.size(), steps));
    std::copy(tokens.begin(), tokens.end(), tgt.data() + b * steps);
    tgt_lens(b) = static_cast<int>(tokens.size());
  }
  return teacher_forced_loss(src, tgt, tgt_lens);
}

LossResult SequenceModel::split_loss(const SequenceSplit& split, const std::vector<std::size_t>& rows) {
  return teacher_forced_loss(source_rows(split, rows), take_rows(split.tgt, rows), take_rows(split.tgt_lens, rows));
}

LossResult SequenceModel::teacher_forced_loss(const VectorBatch& src, const IntTensor& tgt, const IntTensor& tgt_lens) {
  const std::size_t batch = tgt.shape()[0];
  const Var logits = forward(src, decoder_inputs(tgt), ForwardContext::evaluation_without_weights());
  const Var per_sequence = masked_cross_entropy(logits, tgt, tgt_lens);  // [B]: sum_t ce / T
  const float steps = static_cast<float>(tgt.shape()[1]);
  Tensor per_token = Tensor::from_shape({batch});  // T / len_b: the row's mean over its tokens
  for (std::size_t b = 0; b < batch; ++b) per_token(b) = steps / static_cast<float>(std::max(tgt_lens(b), 1));
  LossResult r;
  r.loss = sum(per_sequence * constant(std::move(per_token)));
  r.sum = static_cast<double>(sum(per_sequence).item()) * steps;
  r.count = static_cast<double>(xt::sum(tgt_lens)());
  return r;
}

const SequenceSplit& SequenceModel::eval_split() const { return data_.valid.size() ? data_.valid : data_.train; }
// Without a validation split the metrics are measured on the training set: "trainset_", so they
// do not collide with the trainer's running train_loss.
std::string SequenceModel::eval_prefix() const { return data_.valid.size() ? "valid_" : "trainset_"; }

Metrics SequenceModel::evaluate(bool full) { return evaluate_split(eval_split(), eval_prefix(), full); }

Metrics SequenceModel::evaluate_probe() {
  Metrics decoding;
  for (const auto& [name, value] : evaluate_split(probe_split(data_), "probe_", true))
    if (name == "probe_exact_match" || name == "probe_bleu" || name == "probe_bleu4") decoding[name] = value;
  return decoding;
}

Metrics SequenceModel::evaluate_split(const SequenceSplit& split, const std::string& p, bool full) {
  double ce = 0, tokens = 0, correct = 0;
  std::vector<Tokens> predictions, labels;
  std::size_t exact = 0;
  double bleu_total = 0;
  const std::size_t chunk = evaluation_batch(data_.num_steps);
  for (std::size_t from = 0; from < split.size(); from += chunk) {
    std::vector<std::size_t> rows(std::min(chunk, split.size() - from));
    std::iota(rows.begin(), rows.end(), from);
    const VectorBatch src = source_rows(split, rows);
    const IntTensor tgt = take_rows(split.tgt, rows), tgt_lens = take_rows(split.tgt_lens, rows);
    const Var logits = forward(src, decoder_inputs(tgt), ForwardContext::evaluation_without_weights());
    ce += static_cast<double>(xt::sum(masked_cross_entropy(logits, tgt, tgt_lens).value())()) *
          static_cast<double>(tgt.shape()[1]);
    const std::size_t steps = tgt.shape()[1], vocab = logits.dim(2);
    for (std::size_t b = 0; b < rows.size(); ++b)
      for (std::size_t t = 0; t < static_cast<std::size_t>(tgt_lens(b)); ++t) {
        const float* l = logits.value().data() + (b * steps + t) * vocab;
        correct += (std::max_element(l, l + vocab) - l) == tgt(b, t);
        tokens += 1;
      }
    if (!full) continue;
    const std::vector<Translation> decoded = greedy(src, data_.num_steps);
    for (std::size_t b = 0; b < rows.size(); ++b) {
      std::vector<int> label_ids(tgt.data() + b * steps, tgt.data() + (b + 1) * steps);
      const Tokens label = data_.tgt_vocab.decode(label_ids), pred = data_.tgt_vocab.decode(decoded[b].tokens);
      exact += pred == label;
      bleu_total += bleu(pred, label, 2);
      predictions.push_back(pred);
      labels.push_back(label);
    }
  }
  Metrics m;
  m[p + "loss"] = ce / std::max(tokens, 1.0);
  m[p + "ppl"] = std::exp(m[p + "loss"]);
  m[p + "token_acc"] = correct / std::max(tokens, 1.0);
  if (full) {
    const double n = static_cast<double>(std::max<std::size_t>(split.size(), 1));
    m[p + "exact_match"] = static_cast<double>(exact) / n;
    m[p + "bleu"] = bleu_total / n;
    m[p + "bleu4"] = corpus_bleu(predictions, labels);
  }
  return m;
}

std::vector<Translation> SequenceModel::greedy(const VectorBatch& src, std::size_t max_len, bool stop_at_eos) {
  const NoGrad no_grad;  // decoding is never differentiated
  const std::size_t batch = src.size();
  std::unique_ptr<DecoderState> state = start(src);
  std::vector<Translation> out(batch);
  std::vector<std::vector<NamedTensors>> steps(batch);
  std::vector<int> tokens(batch, Vocab::bos);
  std::vector<bool> done(batch, false);
  for (std::size_t t = 0; t < max_len; ++t) {
    const DecodeStep s = step(*state, tokens);
    for (std::size_t b = 0; b < batch; ++b) {
      if (done[b]) continue;
      const int next = argmax_row(s.log_probs, b);
      out[b].log_prob += s.log_probs(b, static_cast<std::size_t>(next));
      NamedTensors row;
      for (const auto& [name, w] : s.attention) row.emplace_back(name, row_of(w, b));
      steps[b].push_back(std::move(row));
      if (next == Vocab::eos) done[b] = true;
      else out[b].tokens.push_back(next);
      tokens[b] = next;
    }
    if (stop_at_eos && std::all_of(done.begin(), done.end(), [](bool d) { return d; })) break;
  }
  for (std::size_t b = 0; b < batch; ++b) {
    out[b].attention = state->source_attention(b);
    std::vector<const NamedTensors*> rows;
    for (const NamedTensors& row : steps[b]) rows.push_back(&row);
    for (auto& named : stack_steps(rows)) out[b].attention.push_back(std::move(named));
    out[b].score = out[b].log_prob;
    out[b].cache_bytes = state->cache_bytes();
  }
  return out;
}

// Beam search (d2l 10.8): keep the `beam` best partial hypotheses; a hypothesis ending in <eos>
// is finished; at the end, the best of finished and live by log P / L^alpha.
Translation SequenceModel::translate(const std::vector<int>& src_ids, const DecodeOptions& options) {
  require_token_sources("translate (typed words)");
  const VectorBatch src = token_sources({src_ids}, data_.num_steps);
  if (options.beam <= 1) {
    const NoGrad no_grad;
    return greedy(src, options.max_len, options.stop_at_eos)[0];
  }
  return beam_search(src, options)[0];
}

namespace {

constexpr std::size_t no_step = static_cast<std::size_t>(-1);

// One decoded step of one hypothesis: the token it chose, its attention rows and the record of
// the step before it (a back-pointer). A hypothesis is its last record: extending it appends
// one record instead of copying its whole history (that copy, O(t) tensors per hypothesis and
// step, was most of batched beam search's time).
struct StepRecord {
  std::size_t parent = no_step;
  int token = Vocab::bos;
  NamedTensors attention;
};

// One hypothesis of a beam, live or finished.
struct Hypothesis {
  double log_prob = 0;
  std::size_t length = 0;      // its tokens, without <eos>
  std::size_t last = no_step;  // its last record (no_step before the first step)
  int last_token = Vocab::bos;

  double score(double alpha) const {
    return log_prob / std::pow(static_cast<double>(std::max<std::size_t>(length, 1)), alpha);
  }
};

struct Candidate {
  double log_prob;
  std::size_t row;  // the live row it extends
  int token;
};

// The translation of hypothesis h, read back along its records' parents (once, for the
// hypothesis that wins: building every finished one's attention stack cost O(t) each).
Translation translation(const std::vector<StepRecord>& records, const Hypothesis& h, double alpha) {
  std::vector<const NamedTensors*> steps;
  Translation t;
  for (std::size_t r = h.last; r != no_step; r = records[r].parent) {
    steps.push_back(&records[r].attention);
    if (records[r].token != Vocab::eos) t.tokens.push_back(records[r].token);
  }
  std::reverse(steps.begin(), steps.end());
  std::reverse(t.tokens.begin(), t.tokens.end());
  t.log_prob = h.log_prob;
  t.score = h.score(alpha);
  t.attention = stack_steps(steps);
  return t;
}

// The candidates of one sentence's live rows [first, first + count) that go on, best first:
// `beam` of them; without stopping at <eos>, as many more as <eos> took out.
std::vector<Candidate> best_candidates(const Tensor& log_probs, const std::vector<Hypothesis>& live, std::size_t first,
                                       std::size_t count, const DecodeOptions& options) {
  const std::size_t vocab = log_probs.shape()[1];
  std::vector<Candidate> candidates;
  for (std::size_t r = first; r < first + count; ++r)
    for (std::size_t v = 0; v < vocab; ++v) candidates.push_back({live[r].log_prob + log_probs(r, v), r, static_cast<int>(v)});
  const std::size_t keep = std::min(options.beam, candidates.size());
  const std::size_t sorted = std::min(options.stop_at_eos ? keep : 2 * keep, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(sorted), candidates.end(),
                    [](const Candidate& a, const Candidate& b) { return a.log_prob > b.log_prob; });
  std::vector<Candidate> out;
  std::size_t going_on = 0;
  for (std::size_t c = 0; c < sorted && (c < keep || going_on < keep); ++c) {
    if (c >= keep && candidates[c].token == Vocab::eos) continue;
    going_on += candidates[c].token != Vocab::eos;
    out.push_back(candidates[c]);
  }
  return out;
}

}  // namespace

// Every sentence's beam is decoded in one batch: the live rows of all sentences go through one
// step(), then each sentence keeps its best `beam` extensions (d2l's beam search, per sentence).
std::vector<Translation> SequenceModel::beam_search(const VectorBatch& src, const DecodeOptions& options) {
  const NoGrad no_grad;  // decoding is never differentiated
  const std::size_t sentences = src.size();
  std::unique_ptr<DecoderState> state = start(src);
  std::vector<Hypothesis> live(sentences);         // rows of the state, grouped by sentence
  std::vector<std::size_t> live_count(sentences, 1);  // each sentence's rows in `live`
  std::vector<std::vector<Hypothesis>> done(sentences);  // finished: ended by <eos>
  std::vector<StepRecord> records;                 // every step of every hypothesis
  for (std::size_t t = 0; t < options.max_len && !live.empty(); ++t) {
    std::vector<int> last;
    for (const Hypothesis& h : live) last.push_back(h.last_token);
    const DecodeStep s = step(*state, last);
    std::vector<Hypothesis> next;
    std::vector<std::size_t> parents;
    std::vector<std::size_t> next_count(sentences, 0);
    for (std::size_t b = 0, first = 0; b < sentences; first += live_count[b], ++b) {
      if (live_count[b] == 0) continue;
      for (const Candidate& c : best_candidates(s.log_probs, live, first, live_count[b], options)) {
        const Hypothesis& from = live[c.row];
        StepRecord record{from.last, c.token, {}};
        for (const auto& [name, w] : s.attention) record.attention.emplace_back(name, row_of(w, c.row));
        records.push_back(std::move(record));
        if (c.token == Vocab::eos) {
          done[b].push_back({c.log_prob, from.length, records.size() - 1, c.token});
          continue;
        }
        next.push_back({c.log_prob, from.length + 1, records.size() - 1, c.token});
        parents.push_back(c.row);
        ++next_count[b];
      }
    }
    live = std::move(next);
    live_count = std::move(next_count);
    if (!live.empty()) state = state->select(parents);
  }
  std::vector<Translation> out;
  for (std::size_t b = 0, first = 0; b < sentences; first += live_count[b], ++b) {
    done[b].insert(done[b].end(), live.begin() + static_cast<std::ptrdiff_t>(first),
                   live.begin() + static_cast<std::ptrdiff_t>(first + live_count[b]));
    const double alpha = options.alpha;
    const auto best = std::max_element(done[b].begin(), done[b].end(), [alpha](const Hypothesis& a, const Hypothesis& c) {
      return a.score(alpha) < c.score(alpha);
    });
    out.push_back(translation(records, *best, alpha));
    out.back().cache_bytes = state->cache_bytes();
  }
  return out;
}

namespace {

// The gold key of each query row of a cross-attention map (-1 where the task gives none).
std::vector<int> gold_row(const SequenceSplit& split, std::size_t row, std::size_t n_q) {
  if (split.alignment.size() == 0) return {};
  const std::size_t steps = split.alignment.shape()[1];
  std::vector<int> gold(n_q, -1);
  for (std::size_t q = 0; q < std::min(n_q, steps); ++q) gold[q] = split.alignment(row, q);
  return gold;
}

// Row i of a batch of sources: its description and its positions' labels (tokens with <eos>;
// frames by their time in seconds, which are also their positions).
struct SourceLabels {
  std::string text;
  std::vector<std::string> labels;
  std::vector<float> positions;
};

SourceLabels source_labels(const SequenceData& data, const SequenceSplit& split, const VectorBatch& src, std::size_t i,
                           std::size_t row) {
  SourceLabels out;
  const std::size_t n = static_cast<std::size_t>(src.lens(i));
  if (split.src_vectors) {
    out.text = split.src_vectors->describe(row);
    for (std::size_t t = 0; t < n; ++t) {
      const float seconds = src.times(i, t);
      out.positions.push_back(seconds);
      out.labels.push_back(std::to_string(static_cast<int>(std::lround(seconds * 1000.0f))) + "ms");
    }
    return out;
  }
  const std::size_t steps = src.tokens.shape()[1];
  const std::vector<int> ids(src.tokens.data() + i * steps, src.tokens.data() + (i + 1) * steps);
  out.text = join_tokens(data.src_vocab.decode(ids));
  for (std::size_t t = 0; t < n; ++t) out.labels.push_back(data.src_vocab.token(ids[t]));
  return out;
}

}  // namespace

std::vector<ExampleAttention> SequenceModel::record_attention(const std::vector<std::size_t>& examples) {
  const SequenceSplit& split = probe_split(data_);
  std::vector<std::size_t> rows;
  for (std::size_t e : examples)
    if (e < split.size()) rows.push_back(e);
  if (rows.empty()) return {};
  const VectorBatch src = source_rows(split, rows);
  const IntTensor tgt = take_rows(split.tgt, rows);
  const std::vector<Translation> decoded = greedy(src, data_.num_steps);
  std::vector<ExampleAttention> out;
  const std::size_t steps = tgt.shape()[1];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ExampleAttention ex;
    ex.example = rows[i];
    const SourceLabels source = source_labels(data_, split, src, i, rows[i]);
    const std::vector<int> tgt_ids(tgt.data() + i * steps, tgt.data() + (i + 1) * steps);
    ex.source = source.text;
    ex.target = join_tokens(data_.tgt_vocab.decode(tgt_ids));
    ex.prediction = join_tokens(data_.tgt_vocab.decode(decoded[i].tokens));
    // Query labels: the predicted tokens then <eos>; key labels: the source's (tokens with
    // <eos>, or frame times) or the decoder's own inputs (<bos> + prediction) for decoder
    // self-attention.
    std::vector<std::string> out_tokens;
    for (int id : decoded[i].tokens) out_tokens.push_back(data_.tgt_vocab.token(id));
    std::vector<std::string> queries = out_tokens, dec_keys = {"<bos>"};
    dec_keys.insert(dec_keys.end(), out_tokens.begin(), out_tokens.end());
    for (const auto& [name, w] : decoded[i].attention) {
      // decoder_state: a decoder attention whose mode reads the decoder's own state (one key)
      const bool on_source = name == "encoder_self", self = name == "decoder_self", state = name == "decoder_state";
      AttentionMap map{name, w, on_source ? source.labels : queries,
                       self ? dec_keys : state ? std::vector<std::string>{"<state>"} : source.labels, {}, {}, {}};
      map.queries.resize(w.shape()[2], on_source ? "<pad>" : "<eos>");
      map.keys.resize(w.shape()[3], "<pad>");  // keys beyond the labels are padding positions
      if (!self && !state) map.key_positions = source.positions;
      if (on_source) map.query_positions = source.positions;
      if (name == "cross") map.gold_keys = gold_row(split, rows[i], w.shape()[2]);
      ex.maps.push_back(std::move(map));
    }
    out.push_back(std::move(ex));
  }
  return out;
}

}  // namespace attn
