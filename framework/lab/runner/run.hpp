// One run of an experiment: load the data, build the model, train, evaluate, record attention.
// Everything random comes from the run's seed, so a run gives bit-identical results on any
// thread, alone or beside others.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lab/results/checkpoints.hpp"
#include "lab/results/results_format.hpp"
#include "lab/runner/memory_plan.hpp"
#include "lab/spec/spec.hpp"
#include "attnlab/registries.hpp"

namespace attn {

// Builds what a run needs, for validation: constructs the dataset source, loads the data,
// constructs the model and the optimizer. Throws SpecError / RegistryError on problems; data
// or a model that would not fit in `limit` is a SpecError before it is allocated.
struct RunParts {
  std::shared_ptr<DatasetSource> source;
  Data data;
  double data_bytes = 0;  // the dataset's estimate
  ParamStore params;
  std::shared_ptr<Model> model;
  // The options the dataset and the model read when built, with their defaults (attnlab keys SPEC).
  std::vector<Options::Asked> dataset_read, model_read;
};
std::unique_ptr<RunParts> build_run(const RunPlan& plan, const Registries& registries, const std::string& spec_dir,
                                    const MemoryLimit& limit = {});

// The record of `plan` before it runs: its id, config, sweep point, seed and index.
RunRecord planned_record(const RunPlan& plan);

// Runs a whole run into the record the results file keeps, telling `observer` of its start
// and epochs; errors are caught and reported in the record (status
// failed), never thrown. With a checkpoint, the
// run continues from it (when resuming) and saves it periodically and when interrupted.
// What the runner hears of a run: its start, once the model is built, with the epochs it will
// train (0 for a model with nothing to learn), and each epoch (returning false interrupts).
struct RunObserver {
  std::function<void(std::size_t epochs)> started;
  std::function<bool(const EpochRecord&)> epoch;
  // After training: "evaluating at length 512 (2 of 3)" (returning false interrupts).
  std::function<bool(const std::string& what)> stage;
};
RunRecord execute_run(const RunPlan& plan, const Registries& registries, const std::string& spec_dir,
                      const RunObserver& observer, const RunCheckpoint* checkpoint = nullptr, const MemoryLimit& limit = {});

// Every problem the plugins find in the runs of a spec (unknown plugin names, bad or unknown
// options, missing files, metrics early stopping cannot watch, runs that would not fit in
// `limit`), each once, with its location.
// `footprint`, when given, receives what else validation learns of the runs.
struct RunsFootprint {
  double results_bytes = 0;  // about what the results take in the file (parameters, a margin for maps and history)
  std::vector<std::string> data_files;  // the files the datasets read, as they read them (defaults included)
};
std::vector<Diagnostic> validate_runs(const Spec& spec, const Registries& registries, const MemoryLimit& limit = {},
                                      RunsFootprint* footprint = nullptr);

}  // namespace attn
