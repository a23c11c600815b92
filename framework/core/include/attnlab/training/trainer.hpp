// The training loop: epochs of shuffled minibatches, loss -> backward -> gradient norms ->
// global-norm clipping -> optimizer step at the schedule's learning rate; evaluation after every `eval_every` epochs; early stopping on a validation
// metric (restoring the best parameters); a NaN or infinite loss stops the run as diverged.
// The whole state — parameters, optimizer state, random stream, history, early-stopping
// bookkeeping — is exported as plain data (TrainerState) that the lab saves in a checkpoint,
// and a run restored from it ends bit-identical to an uninterrupted run.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/models/attention_metrics.hpp"
#include "attnlab/models/model.hpp"
#include "attnlab/plugin_choice.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/training/lr_schedule.hpp"
#include "attnlab/training/teacher_forcing.hpp"

namespace attn {

// What a run records of its attention while it trains (the spec's record.* keys).
struct AttentionRecording {
  std::vector<std::size_t> examples{0, 1, 2};  // probe examples whose maps are kept
  std::vector<std::size_t> epochs;              // epochs whose maps are kept as snapshots
  std::size_t every = 0;                        // and every k-th epoch (0: none)
  bool metrics = true;                          // attention metrics of the probe set, each evaluated epoch
  bool snapshot_at(std::size_t epoch) const;
};

struct TrainConfig {
  PluginChoice optimizer{"adam", {}, ""};
  float lr = 1e-3f;
  std::size_t epochs = 10;
  std::size_t steps = 0;        // updates in all (0: whole epochs): the run has ceil(steps / updates
                                // per epoch) epochs and its last one stops after the steps-th update
  std::size_t batch_size = 64;
  double clip = 0.0;            // global gradient norm limit; 0 = no clipping
  bool shuffle = true;
  std::string early_stopping;   // metric to watch ("" = off), e.g. valid_loss
  std::size_t patience = 5;     // evaluations without improvement before stopping
  std::size_t eval_every = 1;   // epochs between evaluations (the last epoch is always evaluated)
  // The decoding metrics (exact match, BLEU) at every evaluated epoch: "none" (only at the end),
  // "valid" (the model's evaluation split, valid_*) or "probe" (the probe set, probe_*).
  std::string decode_metrics = "none";
  LrSchedule schedule;          // the learning rate of each update (lr_schedule.hpp)
  float label_smoothing = 0.0f; // eps of the smoothed cross-entropy; 0 = plain
  TeacherForcing teacher_forcing;  // scheduled sampling (teacher_forcing.hpp); default: always the gold token
  AttentionRecording attention;
};

// What an evaluated epoch measures: the model's metrics, and its decoding metrics as
// `decode_metrics` asks (TrainConfig::decode_metrics).
Metrics epoch_metrics(Model& model, const std::string& decode_metrics);
std::vector<std::string> decode_metrics_choices();  // none, valid, probe

// How a run ended. finished and early_stopped are successes; a run that failed (an error
// before or while training) never reached the trainer's end.
enum class RunStatus { finished, early_stopped, diverged, interrupted, failed };
const char* to_string(RunStatus s);
// The status named `text`, or nothing when it names none.
std::optional<RunStatus> parse_run_status(const std::string& text);
bool succeeded(RunStatus s);  // finished or early_stopped

struct EpochRecord {
  std::size_t epoch = 0;   // 1-based
  double train_loss = 0.0;
  double grad_norm = 0.0;  // global gradient norm, mean over the epoch's steps, before clipping
  double clipped_fraction = 0.0;  // of the epoch's steps, those whose gradients were clipped
  double lr = 0.0;         // the learning rate of the epoch's last update
  double seconds = 0.0;
  // Further training statistics: "grad_norm.<group>" (the norm of a parameter group, mean
  // over the steps, before clipping) and, when decoder inputs are sampled, "teacher_forcing"
  // (the ratio of the epoch's last update).
  std::map<std::string, double> statistics;
  Metrics metrics;         // empty when the epoch was not evaluated; with "attention.<map>.<metric>"
  NamedTensors arrays;     // evaluated epochs: Model::evaluation_arrays() (a classifier's confusion matrix)
  std::vector<MapMetrics> attention;       // per layer and head (evaluated epochs; attention_metrics.hpp)
  std::vector<ExampleAttention> snapshot;  // the recorded examples' maps (snapshot epochs)
};

// Everything a Trainer needs to continue exactly where it was, as plain data.
struct TrainerState {
  NamedTensors params;       // the model's parameters, by path
  NamedTensors optimizer;    // the optimizer's state tensors by name ("m/encoder.W", ...)
  NamedTensors best_params;  // early stopping: the best parameters so far (empty before any)
  std::vector<EpochRecord> history;
  std::string rng_state;     // the training stream (shuffling, dropout)
  double best = 0.0;         // the best value of the watched metric
  bool has_best = false;
  std::size_t bad_evaluations = 0;  // evaluations since it last improved
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
  std::size_t epochs() const { return config_.epochs; }  // (with steps: as many as they take)

  TrainerState state() const;
  // Continues from `state` (of a trainer of the same model and config); throws a clear error
  // when a parameter or optimizer tensor is missing or has another shape.
  void restore(const TrainerState& state);

 private:
  EpochRecord train_epoch();
  void look_at_attention(EpochRecord& rec);
  std::size_t steps_per_epoch() const;
  void watch_for_early_stopping(const EpochRecord& rec);
  bool improved(double value) const;

  Model& model_;
  const ParamStore& params_;
  TrainConfig config_;
  Rng rng_;
  NamedVars named_;
  std::shared_ptr<Optimizer> optimizer_;
  std::vector<EpochRecord> history_;
  double best_ = 0.0;
  bool has_best_ = false;
  std::size_t bad_evaluations_ = 0;
  std::vector<Tensor> best_params_;  // parallel to named_
};

}  // namespace attn
