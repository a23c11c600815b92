// W2 (BENCHMARKS.md): d2l's Bahdanau seq2seq trained on the reverse task. The model, data and
// training are those of bench/w2-bahdanau.yaml, run by the same code as `attnlab run` (without
// writing a results file). Epoch times cover training only: the held-out set is evaluated after
// the last epoch (greedy decoding, exact match). W2-lstm and W2-rnn are the same with the LSTM
// and the plain (Elman) cell; their twin is bench/w2_bahdanau.py --cell lstm|rnn.
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "lab/builtins.hpp"
#include "lab/runner/run.hpp"
#include "timing.hpp"
#include "workloads.hpp"

namespace attn::bench {

namespace {

std::string run_w2_cell(const Args& args, const std::string& cell) {
  Registries registries;
  register_builtins(registries);
  const std::string spec_path = std::string(bench_dir) + "/w2-bahdanau.yaml";
  // The twin times training and evaluation only: attnlab's per-epoch attention metrics are off.
  const SpecResult read = read_spec(spec_path, {"seed=" + std::to_string(args.seed), "record.metrics=false", "model.cell=" + cell});
  if (!read.spec) throw std::runtime_error(read.diagnostics.at(0).str());
  const Spec& spec = *read.spec;
  const RunPlan& plan = spec.runs.at(0);

  // Valid target tokens per epoch, from the same data the run generates from its seed.
  const auto parts = build_run(plan, registries, spec.directory);
  const IntTensor& lens = std::get<SequenceData>(parts->data).train.tgt_lens;
  const double tokens = std::accumulate(lens.begin(), lens.end(), 0.0);

  RunObserver observer;
  observer.epoch = [&](const EpochRecord& e) {
    std::fprintf(stderr, "epoch %zu/%zu: loss %.4f, %.2f s\n", e.epoch, plan.training.epochs, e.train_loss, e.seconds);
    return true;
  };
  const RunRecord r = execute_run(plan, registries, spec.directory, observer);
  if (r.status != RunStatus::finished) throw std::runtime_error(std::string("the W2 run ended ") + to_string(r.status) + ": " + r.error);

  std::vector<double> seconds;
  for (const EpochRecord& e : r.history) seconds.push_back(e.seconds);
  const double epoch_seconds = median(seconds);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"workload\": \"%s\", \"cell\": \"%s\", \"threads\": %d, \"epochs\": %zu, \"median_epoch_s\": %.6f, "
                "\"tokens_per_s\": %.1f, \"final_train_loss\": %.6f, \"exact_match\": %.4f}",
                cell == "gru" ? "W2" : ("W2-" + cell).c_str(), cell.c_str(), args.threads, r.history.size(), epoch_seconds, tokens / epoch_seconds, r.history.back().train_loss,
                r.metrics.at("valid_exact_match"));
  return buf;
}

}  // namespace

std::string run_w2(const Args& args) { return run_w2_cell(args, "gru"); }
std::string run_w2_lstm(const Args& args) { return run_w2_cell(args, "lstm"); }
std::string run_w2_rnn(const Args& args) { return run_w2_cell(args, "rnn"); }

}  // namespace attn::bench
