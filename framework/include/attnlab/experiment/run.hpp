// One run of an experiment: load the data, build the model, train, evaluate, record attention.
// Everything random comes from the run's seed, so a run gives bit-identical results on any
// thread, alone or beside others.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attnlab/experiment/checkpoints.hpp"
#include "attnlab/experiment/spec.hpp"
#include "attnlab/registries.hpp"

namespace attn {

struct RunResult {
  std::string status;  // finished, early_stopped, diverged, failed, interrupted
  std::string error;   // why it failed
  double wall_seconds = 0.0;
  Metrics metrics;     // final evaluation (full), plus train_loss of the last epoch
  std::vector<EpochRecord> history;
  std::vector<std::pair<std::string, Tensor>> params;  // dotted name -> value
  std::vector<ExampleAttention> attention;
  std::vector<std::pair<std::string, Tensor>> plot_data;  // Model::plot_data()
  std::vector<std::string> src_vocab, tgt_vocab;  // sequence data only (for `attnlab translate`)
  std::size_t num_steps = 0;
  std::size_t resumed_from_epoch = 0;  // > 0: continued from its checkpoint after that epoch
};

// Builds what a run needs, for validation: constructs the dataset source, loads the data,
// constructs the model and the optimizer. Throws OptionError / RegistryError on problems.
struct RunParts {
  std::shared_ptr<DatasetSource> source;
  Data data;
  ParamStore params;
  std::shared_ptr<Model> model;
};
std::unique_ptr<RunParts> build_run(const RunPlan& plan, const Registries& registries, const std::string& spec_dir);

// Runs a whole run. on_epoch is called after every epoch (returning false interrupts); errors
// are caught and reported in the result (status failed), never thrown. With a checkpoint, the
// run continues from it (when resuming) and saves it periodically and when interrupted.
RunResult execute_run(const RunPlan& plan, const Registries& registries, const std::string& spec_dir,
                      const std::function<bool(const EpochRecord&)>& on_epoch,
                      const RunCheckpoint* checkpoint = nullptr);

// Every problem the plugins find in the runs of a spec (unknown plugin names, bad or unknown
// options, missing files, metrics early stopping cannot watch), each once, with its location.
std::vector<Diagnostic> validate_runs(const Spec& spec, const Registries& registries);

}  // namespace attn
