#include "attnlab/training/trainer.hpp"

#include <chrono>
#include <cmath>
#include <numeric>

#include "attnlab/attention/attention.hpp"  // make_plugin
#include "attnlab/io/hdf5_file.hpp"

namespace attn {

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::finished: return "finished";
    case RunStatus::early_stopped: return "early_stopped";
    case RunStatus::diverged: return "diverged";
    case RunStatus::interrupted: return "interrupted";
  }
  return "?";
}

bool larger_is_better(const std::string& m) {
  for (const char* good : {"acc", "exact_match", "bleu"})
    if (m.find(good) != std::string::npos) return true;
  return false;
}

Trainer::Trainer(Model& model, const ParamStore& params, const Registries& registries,
                 const TrainConfig& config, std::uint64_t seed)
    : model_(model), params_(params), config_(config), rng_(Rng(seed).derive("training")), named_(params.items()) {
  optimizer_ = make_plugin(registries.optimizers, config.optimizer, OptimizerArgs{config.optimizer.options, named_, config.lr});
}

Trainer::~Trainer() = default;

bool Trainer::improved(double value) const {
  if (!has_best_) return true;
  return larger_is_better(config_.early_stopping) ? value > best_ : value < best_;
}

RunStatus Trainer::run(const std::function<bool(const EpochRecord&)>& on_epoch) {
  if (!model_.trainable()) return RunStatus::finished;  // nothing to learn (e.g. a fixed kernel)
  const std::size_t n = model_.train_size();
  std::vector<std::size_t> order(n);
  while (true) {
    // Patience used up (in the last epoch, or in the one a checkpoint was taken after): the
    // best parameters come back.
    if (!config_.early_stopping.empty() && has_best_ && bad_evaluations_ >= config_.patience) {
      for (std::size_t i = 0; i < named_.size(); ++i) named_[i].second.mutable_value() = best_params_[i];
      return RunStatus::early_stopped;
    }
    if (history_.size() >= config_.epochs) return RunStatus::finished;
    const auto start = std::chrono::steady_clock::now();
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (config_.shuffle)  // Fisher-Yates with the run's stream
      for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng_.below(i)]);
    EpochRecord rec;
    rec.epoch = history_.size() + 1;
    double sum = 0, count = 0, norms = 0;
    std::size_t steps = 0;
    for (std::size_t from = 0; from < n; from += config_.batch_size) {
      const std::vector<std::size_t> batch(order.begin() + static_cast<std::ptrdiff_t>(from),
                                           order.begin() + static_cast<std::ptrdiff_t>(std::min(n, from + config_.batch_size)));
      params_.zero_grad();
      const LossResult r = model_.loss(batch, rng_);
      r.loss.backward();
      norms += clip_grad_norm(named_, config_.clip);
      optimizer_->step();
      sum += r.sum;
      count += r.count;
      ++steps;
    }
    rec.train_loss = sum / std::max(count, 1e-300);
    rec.grad_norm = norms / static_cast<double>(std::max<std::size_t>(steps, 1));
    if (!std::isfinite(rec.train_loss)) {
      rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      history_.push_back(rec);
      return RunStatus::diverged;
    }
    const bool last = rec.epoch == config_.epochs;
    if (last || rec.epoch % std::max<std::size_t>(config_.eval_every, 1) == 0) rec.metrics = model_.evaluate(false);
    rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    history_.push_back(rec);

    if (!config_.early_stopping.empty() && !rec.metrics.empty()) {
      const auto it = rec.metrics.find(config_.early_stopping);
      if (it == rec.metrics.end())
        throw std::invalid_argument("early stopping watches '" + config_.early_stopping +
                                    "', which this model does not report");
      if (improved(it->second)) {
        best_ = it->second, has_best_ = true, bad_evaluations_ = 0;
        best_params_.clear();
        for (const auto& item : named_) best_params_.push_back(item.second.value());
      } else {
        ++bad_evaluations_;
      }
    }
    if (on_epoch && !on_epoch(rec)) return RunStatus::interrupted;
  }
}

// Layout under `group`: params/<name>, optimizer/<state name>, history/<column>, and attributes
// rng_state, epochs_done, best, has_best, bad_evaluations; best/<name> when early stopping.
void Trainer::save_checkpoint(Hdf5File& f, const std::string& group) const {
  f.create_group(group);
  for (const auto& [name, var] : named_) f.write(group + "/params/" + name, var.value());
  for (const auto& [name, tensor] : optimizer_->state()) f.write(group + "/optimizer/" + name, *tensor);
  for (std::size_t i = 0; i < best_params_.size(); ++i) f.write(group + "/best/" + named_[i].first, best_params_[i]);
  std::vector<double> epoch, loss, norm, seconds;
  std::map<std::string, std::vector<double>> metrics;
  for (const EpochRecord& r : history_) {
    epoch.push_back(static_cast<double>(r.epoch));
    loss.push_back(r.train_loss);
    norm.push_back(r.grad_norm);
    seconds.push_back(r.seconds);
    for (const auto& [k, v] : r.metrics) metrics[k];
  }
  for (auto& [k, column] : metrics)
    for (const EpochRecord& r : history_) {
      const auto it = r.metrics.find(k);
      column.push_back(it == r.metrics.end() ? std::nan("") : it->second);
    }
  f.write(group + "/history/epoch", epoch);
  f.write(group + "/history/train_loss", loss);
  f.write(group + "/history/grad_norm", norm);
  f.write(group + "/history/seconds", seconds);
  for (const auto& [k, column] : metrics) f.write(group + "/history/" + k, column);
  f.set_attr(group, "rng_state", rng_.state());
  f.set_attr(group, "epochs_done", static_cast<long>(history_.size()));
  f.set_attr(group, "best", best_);
  f.set_attr(group, "has_best", static_cast<long>(has_best_));
  f.set_attr(group, "bad_evaluations", static_cast<long>(bad_evaluations_));
}

void Trainer::load_checkpoint(const Hdf5File& f, const std::string& group) {
  for (const auto& [name, var] : named_) {
    Tensor t = f.read(group + "/params/" + name);
    if (t.shape() != var.value().shape())
      throw Hdf5Error(f.path() + ": checkpoint parameter " + name + " has shape " + shape_str(shape_of(t)) +
                      ", the model has " + shape_str(var.shape()));
    var.mutable_value() = std::move(t);
  }
  for (const auto& [name, tensor] : optimizer_->state()) *tensor = f.read(group + "/optimizer/" + name);
  best_params_.clear();
  if (f.exists(group + "/best"))
    for (const auto& item : named_) best_params_.push_back(f.read(group + "/best/" + item.first));
  const std::vector<double> epoch = f.read_doubles(group + "/history/epoch");
  const std::vector<double> loss = f.read_doubles(group + "/history/train_loss");
  const std::vector<double> norm = f.read_doubles(group + "/history/grad_norm");
  const std::vector<double> seconds = f.read_doubles(group + "/history/seconds");
  history_.assign(epoch.size(), EpochRecord{});
  for (std::size_t i = 0; i < epoch.size(); ++i) {
    history_[i] = {static_cast<std::size_t>(epoch[i]), loss[i], norm[i], seconds[i], {}};
  }
  for (const std::string& column : f.children(group + "/history")) {
    if (column == "epoch" || column == "train_loss" || column == "grad_norm" || column == "seconds") continue;
    const std::vector<double> values = f.read_doubles(group + "/history/" + column);
    for (std::size_t i = 0; i < values.size() && i < history_.size(); ++i)
      if (!std::isnan(values[i])) history_[i].metrics[column] = values[i];
  }
  rng_.set_state(f.attr_string(group, "rng_state"));
  best_ = f.attr_double(group, "best");
  has_best_ = f.attr_long(group, "has_best") != 0;
  bad_evaluations_ = static_cast<std::size_t>(f.attr_long(group, "bad_evaluations"));
}

}  // namespace attn
