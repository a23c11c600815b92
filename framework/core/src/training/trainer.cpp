#include "attnlab/training/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>


namespace attn {

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::finished: return "finished";
    case RunStatus::early_stopped: return "early_stopped";
    case RunStatus::diverged: return "diverged";
    case RunStatus::interrupted: return "interrupted";
    case RunStatus::failed: return "failed";
  }
  return "?";
}

std::optional<RunStatus> parse_run_status(const std::string& text) {
  for (RunStatus s : {RunStatus::finished, RunStatus::early_stopped, RunStatus::diverged, RunStatus::interrupted,
                      RunStatus::failed})
    if (text == to_string(s)) return s;
  return std::nullopt;
}

bool succeeded(RunStatus s) { return s == RunStatus::finished || s == RunStatus::early_stopped; }

bool larger_is_better(const std::string& m) {
  for (const char* good : {"acc", "exact_match", "bleu"})
    if (m.find(good) != std::string::npos) return true;
  return false;
}

Trainer::Trainer(Model& model, const ParamStore& params, const Registries& registries,
                 const TrainConfig& config, std::uint64_t seed)
    : model_(model), params_(params), config_(config), rng_(Rng(seed).derive("training")), named_(params.items()) {
  if (config.label_smoothing > 0.0f && !model.takes_label_smoothing())
    throw Error("this model's loss is not a cross-entropy: it does not take label smoothing");
  if (config.teacher_forcing.samples() && !model.takes_teacher_forcing())
    throw Error("this model does not take teacher forcing below 1 or scheduled sampling (only seq2seq does)");
  optimizer_ = make_plugin(registries.optimizers, config.optimizer, OptimizerArgs{config.optimizer.options, named_});
  const std::size_t per_epoch = std::max<std::size_t>(steps_per_epoch(), 1);
  if (config_.steps > 0) config_.epochs = (config_.steps + per_epoch - 1) / per_epoch;
}

Trainer::~Trainer() = default;

bool Trainer::improved(double value) const {
  if (!has_best_) return true;
  return larger_is_better(config_.early_stopping) ? value > best_ : value < best_;
}

RunStatus Trainer::run(const std::function<bool(const EpochRecord&)>& on_epoch) {
  if (!model_.trainable()) return RunStatus::finished;  // nothing to learn (e.g. a fixed kernel)
  while (true) {
    // Patience used up (in the last epoch, or in the one a checkpoint was taken after): the
    // best parameters come back.
    if (!config_.early_stopping.empty() && has_best_ && bad_evaluations_ >= config_.patience) {
      for (std::size_t i = 0; i < named_.size(); ++i) named_[i].second.mutable_value() = best_params_[i];
      return RunStatus::early_stopped;
    }
    if (history_.size() >= config_.epochs) return RunStatus::finished;
    const auto start = std::chrono::steady_clock::now();
    EpochRecord rec = train_epoch();
    const bool diverged = !std::isfinite(rec.train_loss);
    const bool last = rec.epoch == config_.epochs;
    if (!diverged) {
      const NoGrad no_grad;  // evaluation keeps no graph
      if (last || rec.epoch % std::max<std::size_t>(config_.eval_every, 1) == 0) {
        rec.metrics = epoch_metrics(model_, config_.decode_metrics);
        rec.arrays = model_.evaluation_arrays();
      }
      look_at_attention(rec);
    }
    rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    history_.push_back(rec);
    if (diverged) return RunStatus::diverged;
    watch_for_early_stopping(rec);
    if (on_epoch && !on_epoch(rec)) return RunStatus::interrupted;
  }
}

Metrics epoch_metrics(Model& model, const std::string& decode_metrics) {
  Metrics m = model.evaluate(decode_metrics == "valid");
  if (decode_metrics == "probe") m.merge(model.evaluate_probe());
  return m;
}

std::vector<std::string> decode_metrics_choices() { return {"none", "valid", "probe"}; }

bool AttentionRecording::snapshot_at(std::size_t epoch) const {
  return (every > 0 && epoch % every == 0) || std::find(epochs.begin(), epochs.end(), epoch) != epochs.end();
}

// The probe set's maps (evaluation mode, no draw from the training stream): their metrics in
// an evaluated epoch, the recorded examples' maps in a snapshot epoch.
void Trainer::look_at_attention(EpochRecord& rec) {
  const bool measure = config_.attention.metrics && !rec.metrics.empty();
  const bool snapshot = config_.attention.snapshot_at(rec.epoch);
  if (!measure && !snapshot) return;
  ProbeLook look = look_at_probe(model_, config_.attention.examples, measure);
  rec.attention = std::move(look.metrics);
  for (const auto& [name, value] : attention_metric_means(rec.attention)) rec.metrics[name] = value;
  if (snapshot) rec.snapshot = std::move(look.kept);
}

std::size_t Trainer::steps_per_epoch() const {
  return (model_.train_size() + config_.batch_size - 1) / std::max<std::size_t>(config_.batch_size, 1);
}

namespace {

// The sums an epoch's record is made of.
struct EpochTally {
  double loss = 0, count = 0, norm = 0;
  std::size_t steps = 0, clipped = 0;
  std::map<std::string, double> group_norms;

  void add(const LossResult& r, const GradientNorms& norms, bool was_clipped) {
    loss += r.sum, count += r.count, norm += norms.total;
    for (const auto& [group, value] : norms.groups) group_norms[group] += value;
    clipped += was_clipped;
    ++steps;
  }

  void fill(EpochRecord& rec) const {
    const double n = static_cast<double>(std::max<std::size_t>(steps, 1));
    rec.train_loss = loss / std::max(count, 1e-300);
    rec.grad_norm = norm / n;
    rec.clipped_fraction = static_cast<double>(clipped) / n;
    for (const auto& [group, value] : group_norms) rec.statistics["grad_norm." + group] = value / n;
  }
};

}  // namespace

// One pass over the training data in shuffled minibatches: loss -> backward -> norms -> clip ->
// step at the scheduled rate. Updates are counted over the whole run (every epoch has as many),
// so the schedules continue exactly after a resume.
EpochRecord Trainer::train_epoch() {
  const std::size_t n = model_.train_size(), per_epoch = steps_per_epoch();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (config_.shuffle)  // Fisher-Yates with the run's stream
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng_.below(i)]);
  EpochRecord rec;
  rec.epoch = history_.size() + 1;
  EpochTally tally;
  std::size_t update = history_.size() * per_epoch;  // updates done before this one
  double ratio = 1.0;
  const std::size_t last_update = config_.steps > 0 ? config_.steps : config_.epochs * per_epoch;
  for (std::size_t from = 0; from < n && update < last_update; from += config_.batch_size, ++update) {
    const std::vector<std::size_t> batch(order.begin() + static_cast<std::ptrdiff_t>(from),
                                         order.begin() + static_cast<std::ptrdiff_t>(std::min(n, from + config_.batch_size)));
    rec.lr = scheduled_lr(config_.schedule, config_.lr, update + 1, last_update);
    ratio = teacher_forcing_ratio(config_.teacher_forcing, update);
    params_.zero_grad();
    const LossResult r = model_.loss(batch, TrainingStep{rng_, config_.label_smoothing, ratio});
    r.loss.backward();
    const GradientNorms norms = gradient_norms(named_);
    tally.add(r, norms, clip_to_norm(named_, norms.total, config_.clip));
    optimizer_->step(static_cast<float>(rec.lr));
  }
  tally.fill(rec);
  if (config_.teacher_forcing.samples()) rec.statistics["teacher_forcing"] = ratio;
  return rec;
}

// Keeps the best parameters of the watched metric and counts evaluations without improvement.
void Trainer::watch_for_early_stopping(const EpochRecord& rec) {
  if (config_.early_stopping.empty() || rec.metrics.empty()) return;
  const auto it = rec.metrics.find(config_.early_stopping);
  if (it == rec.metrics.end())
    throw Error("early stopping watches '" + config_.early_stopping + "', which this model does not report");
  if (!improved(it->second)) {
    ++bad_evaluations_;
    return;
  }
  best_ = it->second, has_best_ = true, bad_evaluations_ = 0;
  best_params_.clear();
  for (const auto& item : named_) best_params_.push_back(item.second.value());
}

TrainerState Trainer::state() const {
  TrainerState s;
  for (const auto& [name, var] : named_) s.params.emplace_back(name, var.value());
  for (const auto& [name, tensor] : optimizer_->state()) s.optimizer.emplace_back(name, *tensor);
  for (std::size_t i = 0; i < best_params_.size(); ++i) s.best_params.emplace_back(named_[i].first, best_params_[i]);
  s.history = history_;
  s.rng_state = rng_.state();
  s.best = best_;
  s.has_best = has_best_;
  s.bad_evaluations = bad_evaluations_;
  return s;
}

namespace {

// The tensor called `name` in `tensors`, which must have `shape`.
const Tensor& find_tensor(const NamedTensors& tensors, const std::string& name, const Shape& shape,
                          const char* what) {
  const auto it = std::find_if(tensors.begin(), tensors.end(), [&](const auto& t) { return t.first == name; });
  if (it == tensors.end()) throw Error(std::string("the saved trainer state has no ") + what + " '" + name + "'");
  if (shape_of(it->second) != shape)
    throw Error(std::string("the saved ") + what + " '" + name + "' has shape " + shape_str(shape_of(it->second)) +
                ", the model has " + shape_str(shape));
  return it->second;
}

}  // namespace

void Trainer::restore(const TrainerState& s) {
  for (const auto& [name, var] : named_) var.mutable_value() = find_tensor(s.params, name, var.shape(), "parameter");
  for (const auto& [name, tensor] : optimizer_->state())
    *tensor = find_tensor(s.optimizer, name, shape_of(*tensor), "optimizer state");
  best_params_.clear();
  if (!s.best_params.empty())
    for (const auto& [name, var] : named_) best_params_.push_back(find_tensor(s.best_params, name, var.shape(), "best parameter"));
  history_ = s.history;
  rng_.set_state(s.rng_state);
  best_ = s.best;
  has_best_ = s.has_best;
  bad_evaluations_ = s.bad_evaluations;
}

}  // namespace attn
