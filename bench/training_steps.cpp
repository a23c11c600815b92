#include "training_steps.hpp"
#include "workloads.hpp"

#include <chrono>
#include <stdexcept>

#include "attnlab/registries.hpp"
#include "attnlab/training/optimizer.hpp"
#include "lab/builtins.hpp"
#include "timing.hpp"

namespace attn::bench {
const Registries& bench_registries() {
  static const Registries* r = [] {
    auto* made = new Registries;
    register_builtins(*made);
    return made;
  }();
  return *r;
}

RunPlan bench_plan(const std::string& spec, const std::vector<std::string>& overrides) {
  const SpecResult read = read_spec(std::string(bench_dir) + "/" + spec, overrides);
  if (!read.spec) throw std::runtime_error(read.diagnostics.at(0).str());
  return read.spec->runs.at(0);
}

std::unique_ptr<RunParts> built_bench_run(const std::string& spec, const std::vector<std::string>& overrides, RunPlan& plan) {
  plan = bench_plan(spec, overrides);
  return build_run(plan, bench_registries(), bench_dir);
}

StepTimes time_training_steps(RunParts& run, const RunPlan& plan, std::size_t warmup, std::size_t steps,
                              const std::function<void()>& between) {
  const NamedVars params = run.params.items();
  const auto optimizer = make_plugin(bench_registries().optimizers, plan.training.optimizer, OptimizerArgs{plan.training.optimizer.options, params});
  Rng rng = Rng(plan.seed).derive("training");
  const std::size_t n = run.model->train_size(), batch = plan.training.batch_size;
  if ((warmup + steps) * batch > n)
    throw std::runtime_error("the bench spec has " + std::to_string(n) + " training examples, fewer than " +
                             std::to_string(warmup + steps) + " batches of " + std::to_string(batch));
  StepTimes out;
  std::vector<double> ms;
  for (std::size_t update = 0; update < warmup + steps; ++update) {
    std::vector<std::size_t> rows(batch);
    for (std::size_t i = 0; i < batch; ++i) rows[i] = update * batch + i;
    const auto start = std::chrono::steady_clock::now();
    run.params.zero_grad();
    const LossResult loss = run.model->loss(rows, TrainingStep{rng});
    loss.loss.backward();
    optimizer->step(plan.training.lr);
    const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const double value = loss.sum / std::max(loss.count, 1.0);
    if (update == 0) out.first_loss = value;
    out.last_loss = value;
    if (update >= warmup) ms.push_back(took);
    if (between) between();
  }
  out.median_ms = median(ms);
  return out;
}

}  // namespace attn::bench
