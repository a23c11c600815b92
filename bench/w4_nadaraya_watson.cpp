// W4 (BENCHMARKS.md): d2l's Nadaraya-Watson regression, non-parametric and with a learned
// kernel width, run by the same code as `attnlab run bench/w4-nadaraya-watson.yaml`. The JSON
// line carries the data and the initial w, so that the twin (bench/w4_nadaraya_watson.py
// --data FILE) trains on the same draw and must reach the same w and MSEs to 1e-4.
//   fit = one whole run: data, model, 5 SGD epochs on the leave-one-out loss, test evaluation
#include <chrono>
#include <sstream>
#include <stdexcept>

#include "lab/builtins.hpp"
#include "lab/runner/run.hpp"
#include "timing.hpp"
#include "workloads.hpp"

namespace attn::bench {
namespace {

std::string json_list(const Tensor& values) {
  std::ostringstream out;
  out.precision(9);
  out << '[';
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values.data()[i];
  return out.str() + ']';
}

RunRecord finished_run(const RunPlan& plan, const Registries& registries, const std::string& dir) {
  RunRecord r = execute_run(plan, registries, dir, RunObserver{});
  if (r.status != RunStatus::finished) throw std::runtime_error("the W4 run " + r.id + " ended " + to_string(r.status) + ": " + r.error);
  return r;
}

}  // namespace

std::string run_w4(const Args& args) {
  Registries registries;
  register_builtins(registries);
  const SpecResult read = read_spec(std::string(bench_dir) + "/w4-nadaraya-watson.yaml", {"seed=" + std::to_string(args.seed)});
  if (!read.spec) throw std::runtime_error(read.diagnostics.at(0).str());
  const Spec& spec = *read.spec;
  const RunPlan &fixed = spec.runs.at(0), &learned = spec.runs.at(1);
  const auto parts = build_run(learned, registries, spec.directory);  // the data and the initial w the run starts from
  const RegressionData& data = std::get<RegressionData>(parts->data);
  const float w_init = parts->params.get("attention.scoring.w").value()(0);

  const RunRecord nonparametric = finished_run(fixed, registries, spec.directory);
  const RunRecord parametric = finished_run(learned, registries, spec.directory);
  const double fit_us = median_us([&] { finished_run(learned, registries, spec.directory); }, 5, 50);
  Tensor losses = Tensor::from_shape({parametric.history.size()});
  for (std::size_t e = 0; e < losses.size(); ++e) losses(e) = static_cast<float>(parametric.history[e].train_loss);
  const Tensor* w = nullptr;
  for (const auto& [name, value] : parametric.params)
    if (name == "attention.scoring.w") w = &value;
  if (!w) throw std::runtime_error("the learned run has no parameter attention.scoring.w");

  std::ostringstream out;
  out.precision(9);
  out << "{\"workload\": \"W4\", \"threads\": " << args.threads << ", \"n_train\": " << data.x_train.size()
      << ", \"nonparametric_test_mse\": " << nonparametric.metrics.at("test_mse")
      << ", \"parametric_test_mse\": " << parametric.metrics.at("test_mse") << ", \"w\": " << (*w)(0)
      << ", \"w_init\": " << w_init << ", \"train_losses\": " << json_list(losses) << ", \"median_fit_us\": " << fit_us
      << ", \"x_train\": " << json_list(data.x_train) << ", \"y_train\": " << json_list(data.y_train) << "}";
  return out.str();
}

}  // namespace attn::bench
