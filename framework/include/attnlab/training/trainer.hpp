// The training loop: epochs of shuffled minibatches, loss -> backward -> global-norm clipping ->
// optimizer step; evaluation after every `eval_every` epochs; early stopping on a validation
// metric (restoring the best parameters); a NaN or infinite loss stops the run as diverged.
// The whole state — parameters, optimizer state, random stream, history, early-stopping
// bookkeeping — goes into a checkpoint, and a run resumed from one ends bit-identical to an
// uninterrupted run.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/attention/plugin_choice.hpp"
#include "attnlab/models/model.hpp"
#include "attnlab/registries.hpp"

namespace attn {

class Hdf5File;

struct TrainConfig {
  PluginChoice optimizer{"adam", {}, ""};
  float lr = 1e-3f;
  std::size_t epochs = 10;
  std::size_t batch_size = 64;
  double clip = 0.0;            // global gradient norm limit; 0 = no clipping
  bool shuffle = true;
  std::string early_stopping;   // metric to watch ("" = off), e.g. valid_loss
  std::size_t patience = 5;     // evaluations without improvement before stopping
  std::size_t eval_every = 1;   // epochs between evaluations (the last epoch is always evaluated)
};

enum class RunStatus { finished, early_stopped, diverged, interrupted };
const char* to_string(RunStatus s);

struct EpochRecord {
  std::size_t epoch = 0;   // 1-based
  double train_loss = 0.0;
  double grad_norm = 0.0;  // mean over the epoch's steps, before clipping
  double seconds = 0.0;
  Metrics metrics;         // empty when the epoch was not evaluated
};

// Whether larger is better for a metric name (accuracy, exact match, BLEU); smaller otherwise.
bool larger_is_better(const std::string& metric);

class Trainer {
 public:
  Trainer(Model& model, const ParamStore& params, const Registries& registries,
          const TrainConfig& config, std::uint64_t seed);
  ~Trainer();

  // Trains from the current epoch to config.epochs. on_epoch is called after every epoch;
  // returning false interrupts the run (status interrupted, state consistent).
  RunStatus run(const std::function<bool(const EpochRecord&)>& on_epoch = {});
  const std::vector<EpochRecord>& history() const { return history_; }
  std::size_t epochs_done() const { return history_.size(); }

  void save_checkpoint(Hdf5File& file, const std::string& group) const;
  void load_checkpoint(const Hdf5File& file, const std::string& group);

 private:
  bool improved(double value) const;

  Model& model_;
  const ParamStore& params_;
  TrainConfig config_;
  Rng rng_;
  std::vector<std::pair<std::string, Var>> named_;
  std::shared_ptr<Optimizer> optimizer_;
  std::vector<EpochRecord> history_;
  double best_ = 0.0;
  bool has_best_ = false;
  std::size_t bad_evaluations_ = 0;
  std::vector<Tensor> best_params_;
};

}  // namespace attn
