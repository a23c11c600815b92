// Timing a model's training steps as `attnlab run` takes them: a bench spec read and built as
// the runner builds it, then updates (forward, backward, optimizer step) on the batches of the
// first epoch in order, without the epoch's evaluation.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lab/runner/run.hpp"

namespace attn::bench {

// One set of registries for the process (every built-in): the models built from them keep
// their plugins, so it lives to the end.
const Registries& bench_registries();

// The run of bench/<spec> (its first), with --set overrides.
RunPlan bench_plan(const std::string& spec, const std::vector<std::string>& overrides);
// The same, built.
std::unique_ptr<RunParts> built_bench_run(const std::string& spec, const std::vector<std::string>& overrides, RunPlan& plan);

struct StepTimes {
  double median_ms = 0.0;   // per update
  double last_loss = 0.0;   // of the last timed update (the model did learn: it falls)
  double first_loss = 0.0;  // of the first update
};

// `warmup` updates, then the median of `steps` more; `between` (if given) is called after each
// update, outside its time (W8 times its sgemm reference there, in turns with the updates).
StepTimes time_training_steps(RunParts& run, const RunPlan& plan, std::size_t warmup, std::size_t steps,
                              const std::function<void()>& between = {});

}  // namespace attn::bench
