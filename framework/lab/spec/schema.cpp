// The fixed keys of an experiment spec (see schema.hpp). Each key that reaches a run is bound to
// its field of the RunPlan by Field<member path>: the same binding sets the field from the spec
// and shows the default that the field's initialiser gives.
#include "lab/spec/schema.hpp"

#include "attnlab/suggest.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>

namespace attn {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// Reading a validated value into a plan field.
void parse_into(std::string& out, const SpecValue& v) { out = v.text(); }
void parse_into(bool& out, const SpecValue& v) { out = *parse_option<bool>(v.text()); }
void parse_into(float& out, const SpecValue& v) { out = *parse_option<float>(v.text()); }
void parse_into(double& out, const SpecValue& v) { out = *parse_option<double>(v.text()); }
void parse_into(std::size_t& out, const SpecValue& v) { out = static_cast<std::size_t>(*parse_option<long>(v.text())); }
void parse_into(PluginChoice& out, const SpecValue& v) {  // its options come from an open section
  out.name = v.text();
  out.where = v.where;
}
void parse_into(std::optional<std::size_t>& out, const SpecValue& v) { parse_into(out.emplace(), v); }
void parse_into(std::vector<std::size_t>& out, const SpecValue& v) {
  out.clear();
  for (const std::string& item : v.items) out.push_back(static_cast<std::size_t>(*parse_option<long>(item)));
}

// A plan field as spec text ("" for an unset optional or an empty string).
std::string text_of(const std::string& s) { return s; }
std::string text_of(const PluginChoice& c) { return c.name; }
std::string text_of(bool b) { return b ? "true" : "false"; }
std::string text_of(std::size_t n) { return std::to_string(n); }
template <class Real, class = std::enable_if_t<std::is_floating_point_v<Real>>>
std::string text_of(Real x) {  // the shortest text that reads back as x (0.001, not 0.00100000005)
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, x).ptr;
  return std::string(buf, end);
}
std::string text_of(const std::optional<std::size_t>& n) { return n ? text_of(*n) : ""; }
std::string text_of(const std::vector<std::size_t>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + text_of(items[i]);
  return out + "]";
}

// The plan field reached through the member pointers Path (e.g. &RunPlan::training, &TrainConfig::lr).
template <auto... Path>
struct Field {
  static void set(RunPlan& p, const SpecValue& v) { parse_into((p .* ... .* Path), v); }
  static std::string show(const RunPlan& p) { return text_of((p .* ... .* Path)); }
};

// The descriptive part of a row; the binding members are set by the callers below.
SpecKey described(std::string key, ValueType type, Bounds bounds, std::string range, std::string doc,
                  std::string default_doc) {
  SpecKey row;
  row.key = std::move(key);
  row.type = type;
  row.bounds = bounds;
  row.range_doc = std::move(range);
  row.doc = std::move(doc);
  row.default_doc = std::move(default_doc);
  return row;
}

template <auto... Path>
SpecKey bound(std::string key, ValueType type, Bounds bounds, std::string doc, std::string default_doc = "") {
  SpecKey row = described(std::move(key), type, bounds, "", std::move(doc), std::move(default_doc));
  row.set = &Field<Path...>::set;
  row.show = &Field<Path...>::show;
  return row;
}

template <auto... Path>
SpecKey bound_text(std::string key, std::string range, std::string doc, std::string default_doc = "") {
  SpecKey row = bound<Path...>(std::move(key), ValueType::string, {}, std::move(doc), std::move(default_doc));
  row.range_doc = std::move(range);
  return row;
}

template <auto... Path>
SpecKey bound_choice(std::string key, const std::vector<std::string>& choices, std::string doc) {
  std::string range;
  for (const std::string& c : choices) range += (range.empty() ? "`" : ", `") + c + "`";
  SpecKey row = bound_text<Path...>(std::move(key), "one of " + range, std::move(doc));
  row.choices = choices;
  return row;
}

SpecKey spec_level(std::string key, ValueType type, std::string range, std::string doc, std::string default_doc) {
  return described(std::move(key), type, {}, std::move(range), std::move(doc), std::move(default_doc));
}

SpecKey plugin_name(std::string key, void (*set)(RunPlan&, const SpecValue&), std::string range, std::string doc) {
  SpecKey row = described(std::move(key), ValueType::string, {}, std::move(range), std::move(doc), "(required)");
  row.set = set;
  row.required = true;
  return row;
}

SpecKey open_section(std::string key, Options& (*options)(RunPlan&), std::string doc, std::string owner) {
  SpecKey row = described(std::move(key), ValueType::plugin_options, {}, "per " + owner, std::move(doc), "per " + owner);
  row.options = options;
  return row;
}

Bounds at_least(double min) { return {min, inf, false}; }
Bounds above(double min) { return {min, inf, true}; }
Bounds between(double min, double max) { return {min, max, false}; }

using P = RunPlan;
using T = TrainConfig;
using S = LrSchedule;
using F = TeacherForcing;
using D = DecodeOptions;
using A = AttentionRecording;
using V = ValueType;

// The keys of the whole spec, the dataset and the model.
std::vector<SpecKey> spec_data_model_keys() {
  return {
      spec_level("name", V::string, "not empty", "a title for the experiment, stored as the root attribute `name`",
                 "the spec file's name without its extension"),
      spec_level("description", V::string, "not empty when given", "free text, kept in the results file (with the spec text)", "`\"\"`"),
      bound<&P::seed>("seed", V::integer, between(0, 1e18), "seeds data, initialisation, shuffling and dropout of every run (sweepable)"),
      spec_level("output", V::string, "a path in an existing, writable directory", "the HDF5 results file; `--output` replaces it",
                 "`<spec file name>.h5`"),
      spec_level("plugins", V::string_list, "paths of plugin libraries",
                 "outside plugins to load before anything else (relative paths: the spec's directory if the file is there, otherwise the current directory)", "`[]`"),
      plugin_name("dataset.name", [](P& p, const SpecValue& v) { p.dataset = v.text(); }, "a registered dataset",
                  "`regression1d`, `sequence_task`, `parallel_corpus`, `fashion_mnist`, `graph`, `coloured_graphs`, `spoken_digits`, "
                  "`text_corpus` ([datasets-and-models.md](datasets-and-models.md)), or a loaded one"),
      open_section("dataset.<option>", [](P& p) -> Options& { return p.dataset_options; },
                   "the dataset's options ([datasets-and-models.md](datasets-and-models.md))", "dataset"),
      plugin_name("model.name", [](P& p, const SpecValue& v) { p.model = v.text(); }, "a registered model",
                  "`nadaraya_watson`, `seq2seq`, `transformer`, `encoder_tagger`, `encoder_classifier`, `vit`, `gat`, "
                  "`language_model`, or a loaded one"),
      open_section("model.<option>", [](P& p) -> Options& { return p.model_options; },
                   "the model's options, nested maps allowed ([datasets-and-models.md](datasets-and-models.md))", "model"),
  };
}

// training.*: the optimizer, the schedule, the loss and the decoder's inputs.
std::vector<SpecKey> training_keys() {
  return {
      bound_text<&P::training, &T::optimizer>("training.optimizer", "a registered optimizer", "`sgd`, `adam` or `adamw`"),
      open_section("training.optimizer_options.<option>", [](P& p) -> Options& { return p.training.optimizer.options; },
                   "sgd: `momentum`, `weight_decay`; adam, adamw: `beta1`, `beta2`, `eps`, `weight_decay` (adamw's is "
                   "decoupled, default 0.01)", "optimizer"),
      bound<&P::training, &T::lr>("training.lr", V::real, above(0), "learning rate (the schedule's base rate)"),
      bound_choice<&P::training, &T::schedule, &S::name>("training.schedule.name", lr_schedule_names(),
                                                         "learning-rate schedule over the run's updates ([training.md](training.md))"),
      bound<&P::training, &T::schedule, &S::warmup>("training.schedule.warmup", V::integer, between(0, 1e9),
                                                    "updates of linear warmup from lr/W to lr (noam: its warmup, required)"),
      bound<&P::training, &T::schedule, &S::step_size>("training.schedule.step_size", V::integer, between(1, 1e9),
                                                       "step: updates between two decays of the rate"),
      bound<&P::training, &T::schedule, &S::gamma>("training.schedule.gamma", V::real, Bounds{0, 1, true},
                                                   "step: the rate is multiplied by gamma every step_size updates"),
      bound<&P::training, &T::schedule, &S::min_lr>("training.schedule.min_lr", V::real, at_least(0),
                                                    "cosine: the rate at the last update (at most lr)"),
      bound<&P::training, &T::schedule, &S::factor>("training.schedule.factor", V::real, above(0),
                                                    "noam: lr_u = lr * factor * d_model^-0.5 * min(u^-0.5, u * W^-1.5)"),
      bound<&P::training, &T::schedule, &S::d_model>("training.schedule.d_model", V::integer, between(1, 1e9),
                                                     "noam: the model width in its formula", "(required for noam)"),
      bound<&P::training, &T::label_smoothing>("training.label_smoothing", V::real, between(0, 1),
                                               "eps: the cross-entropy's target is (1 - eps) one-hot + eps / V (sequence models)"),
      bound<&P::training, &T::teacher_forcing, &F::ratio>("training.teacher_forcing", V::real, between(0, 1),
                                                          "P(the decoder is fed the gold previous token) while training (seq2seq)"),
      bound_choice<&P::training, &T::teacher_forcing, &F::decay>("training.scheduled_sampling.decay", teacher_forcing_decays(),
                                                                 "how the teacher-forcing ratio decays over updates (Bengio et al. 2015)"),
      bound<&P::training, &T::teacher_forcing, &F::k>("training.scheduled_sampling.k", V::real, above(0),
                                                      "exponential: ratio * k^i (k < 1); inverse_sigmoid: ratio * k / (k + exp(i / k)) (k >= 1)",
                                                      "(required for exponential, inverse_sigmoid)"),
      bound<&P::training, &T::teacher_forcing, &F::slope>("training.scheduled_sampling.slope", V::real, above(0),
                                                          "linear: max(min, ratio - slope * i)", "(required for linear)"),
      bound<&P::training, &T::teacher_forcing, &F::min>("training.scheduled_sampling.min", V::real, between(0, 1),
                                                        "linear: the floor of the ratio"),
      bound<&P::training, &T::epochs>("training.epochs", V::integer, between(0, 1e9),
                                      "passes over the training data (0: evaluate the untrained model)"),
      bound<&P::training, &T::steps>("training.steps", V::integer, between(1, 1e12),
                                     "updates in all, instead of epochs: ceil(steps / updates per epoch) epochs, the last one "
                                     "cut after the steps-th update (d2l's fixed-step loops)", "(off: whole epochs)"),
      bound<&P::training, &T::batch_size>("training.batch_size", V::integer, between(1, 1e9),
                                          "examples per step; the last batch may be smaller"),
      bound<&P::training, &T::clip>("training.clip", V::real, at_least(0), "global gradient-norm limit; 0 turns clipping off"),
      bound<&P::training, &T::shuffle>("training.shuffle", V::boolean, {}, "reshuffle the training examples every epoch"),
      bound<&P::training, &T::eval_every>("training.eval_every", V::integer, between(1, 1e9),
                                          "epochs between evaluations; the last epoch is always evaluated"),
      bound_choice<&P::training, &T::decode_metrics>("training.decode_metrics", decode_metrics_choices(),
                                                     "exact match and BLEU at every evaluated epoch (in the history): `valid` on the "
                                                     "validation split (valid_exact_match, ...; every sentence decoded each time), "
                                                     "`probe` on the probe set (probe_exact_match, ...); `none`: at the end only"),
      bound_text<&P::training, &T::early_stopping>("training.early_stopping.metric",
                                                   "a metric the model reports at every evaluated epoch",
                                                   "stop when this metric stops improving, e.g. `valid_loss`, `valid_token_acc` (see below)",
                                              "(off)"),
      bound<&P::training, &T::patience>("training.early_stopping.patience", V::integer, between(1, 1e9),
                                        "evaluations without improvement before stopping"),
  };
}

// evaluation.*, record.* and sweep.*.
std::vector<SpecKey> evaluation_keys() {
  return {
      // Bounded so that decoding stays a matter of seconds: beam x max_len decoder steps per sentence.
      bound<&P::evaluation, &D::beam>("evaluation.beam", V::integer, between(1, 64), "beam size for `attnlab translate` (1 = greedy)"),
      bound<&P::evaluation, &D::alpha>("evaluation.alpha", V::real, between(0, 100),
                                       "beam-search length penalty for `attnlab translate`: score = log P / L^alpha"),
      bound<&P::max_len>("evaluation.max_len", V::integer, between(1, 1000), "most decoding steps for `attnlab translate`",
                         "the dataset's `num_steps`"),
      bound<&P::lengths>("evaluation.lengths", V::int_list, between(1, 1e6),
                         "after training, also evaluate the final model with the dataset's inputs at each length (a text's "
                         "context, a task's source length): metrics per length in the results, `compare` and the report",
                         "`[]`"),
      bound<&P::training, &T::attention, &A::examples>("record.attention", V::int_list, between(0, 1e9),
                                                      "probe-set examples whose attention maps are saved (the probe set is the same for every seed)"),
      bound<&P::training, &T::attention, &A::epochs>("record.epochs", V::int_list, between(1, 1e9),
                                                    "epochs whose maps of the recorded examples are kept as snapshots"),
      bound<&P::training, &T::attention, &A::every>("record.epochs.every", V::integer, between(0, 1e9),
                                                   "also keep a snapshot every k-th epoch (0 = none)"),
      bound<&P::training, &T::attention, &A::metrics>("record.metrics", V::boolean, {},
                                                     "measure the probe set's attention (entropy, alignment...) each evaluated epoch"),
      spec_level("sweep.<key>", V::sweep, "values valid for `<key>`",
                 "one run per combination of the swept keys, e.g. `sweep.seed: [1, 2, 3]`", ""),
  };
}

std::vector<SpecKey> make_spec_keys() {
  std::vector<SpecKey> keys;
  for (auto part : {spec_data_model_keys, training_keys, evaluation_keys})
    for (SpecKey& row : part()) keys.push_back(std::move(row));
  return keys;
}

bool is_numeric(ValueType t) { return t == ValueType::integer || t == ValueType::real || t == ValueType::int_list; }

}  // namespace

std::string SpecKey::prefix() const { return key.substr(0, key.find('<')); }

std::string SpecKey::type_doc() const {
  switch (type) {
    case ValueType::string: return "string";
    case ValueType::integer: return "int";
    case ValueType::real: return "float";
    case ValueType::boolean: return "bool";
    case ValueType::string_list: return "list of strings";
    case ValueType::int_list: return "list of ints";
    case ValueType::plugin_options: return range_doc;
    case ValueType::sweep: return "list";
  }
  return "?";
}

std::string SpecKey::type_phrase() const {
  switch (type) {
    case ValueType::string: return "a string";
    case ValueType::integer: return "an integer";
    case ValueType::real: return "a number";
    case ValueType::boolean: return "true or false";
    case ValueType::string_list: return "a list of strings";
    case ValueType::int_list: return "a list of integers";
    default: return type_doc();
  }
}

std::string SpecKey::default_text() const {
  if (!default_doc.empty() || !show) return default_doc;
  return "`" + show(RunPlan{}) + "`";
}

namespace {

// A bound as written in messages: integers in full (1000000, not 1e+06).
std::string bound_text(double x) {
  return std::floor(x) == x && std::fabs(x) < 1e15 ? std::to_string(static_cast<long long>(x)) : text_of(x);
}

// A maximum this large is a sanity cap (no spec means it), named only when a value exceeds it.
bool is_cap(double max) { return max >= 1e8; }

}  // namespace

std::string SpecKey::range_text() const {
  if (!is_numeric(type)) return range_doc;
  const std::string low = (bounds.min_exclusive ? "> " : ">= ") + bound_text(bounds.min);
  return is_cap(bounds.max) ? low : low + " and <= " + bound_text(bounds.max);
}

const std::vector<SpecKey>& spec_keys() {
  static const std::vector<SpecKey> keys = make_spec_keys();
  return keys;
}

const SpecKey* find_spec_key(const std::string& key) {
  for (const SpecKey& row : spec_keys())
    if (row.key == key && row.type != ValueType::plugin_options && row.type != ValueType::sweep) return &row;
  return nullptr;
}

const SpecKey* plugin_section_of(const std::string& key) {
  if (find_spec_key(key)) return nullptr;
  for (const SpecKey& row : spec_keys())
    if (row.type == ValueType::plugin_options && key.compare(0, row.prefix().size(), row.prefix()) == 0) return &row;
  return nullptr;
}

std::string check_value(const SpecKey& row, const std::string& text) {
  const std::string key = "'" + row.key + "'";
  if (!row.choices.empty() && std::find(row.choices.begin(), row.choices.end(), text) == row.choices.end())
    return key + ": " + unknown_name_message("value", text, row.choices);
  switch (row.type) {
    case ValueType::string:
    case ValueType::string_list:
      return text.empty() ? key + " must not be empty" : "";
    case ValueType::boolean:
      return parse_option<bool>(text) ? "" : key + " must be " + row.type_phrase() + ", got '" + text + "'";
    default:
      break;
  }
  std::optional<double> v = parse_option<double>(text);
  if (row.type != ValueType::real) {
    const auto n = parse_option<long>(text);
    v = n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
  }
  const Bounds& b = row.bounds;
  // Real keys are held in floats or doubles; each is checked against a float's range (no
  // hyperparameter needs more), so that none becomes 0 or inf when read into a float.
  const NumberType type = row.type == ValueType::real ? number_type<float>() : number_type<long>();
  if (!v || (row.type == ValueType::real && !parse_option<float>(text))) switch (number_problem(text, type)) {
      case NumberProblem::not_a_number:
        return key + " must be " + row.type_phrase() + ", got '" + text + "'";
      case NumberProblem::not_whole:
        return key + " must be " + row.type_phrase() + " (a whole number, no point or exponent), got " + text;
      case NumberProblem::too_near_zero:
        return key + " got " + text + ", which " + number_problem_words(NumberProblem::too_near_zero, type);
      case NumberProblem::out_of_range:
        if (row.type == ValueType::real) return key + " got " + text + ", which " + number_problem_words(NumberProblem::out_of_range, type);
        return key + " must be " + (text[0] == '-' ? row.range_text() : "<= " + bound_text(b.max)) + ", got " + text;
    }
  const double value = static_cast<double>(*v);
  if (b.min_exclusive ? value <= b.min : value < b.min) return key + " must be " + row.range_text() + ", got " + text;
  if (value > b.max) return key + " must be <= " + bound_text(b.max) + ", got " + text;
  return "";
}

std::string spec_keys_table(bool markdown) {
  std::ostringstream out;
  if (markdown) {
    out << "| key | type | default | range | meaning |\n| --- | --- | --- | --- | --- |\n";
    for (const SpecKey& r : spec_keys())
      out << "| `" << r.key << "` | " << r.type_doc() << " | " << r.default_text() << " | " << r.range_text() << " | "
          << r.doc << " |\n";
    return out.str();
  }
  const auto plain = [](std::string text) {  // markdown's backticks dropped
    text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
    return text;
  };
  for (const SpecKey& r : spec_keys()) {
    const std::string def = plain(r.default_text());
    out << r.key << "  (" << r.type_doc();
    if (!def.empty()) out << (def[0] == '(' ? ", " + def.substr(1, def.size() - 2) : ", default " + def);
    if (!r.range_text().empty()) out << "; " << plain(r.range_text());
    out << ")\n    " << plain(r.doc) << "\n";
  }
  return out.str();
}

}  // namespace attn
