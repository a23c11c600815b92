// W10 (BENCHMARKS.md): GAT on Zachary's karate club (bench/w10-gat.yaml), trained by the same
// code as `attnlab run`: the median time of an epoch (one update on the whole graph, then the
// validation accuracy), and the accuracy reached.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "timing.hpp"
#include "training_steps.hpp"
#include "workloads.hpp"

namespace attn::bench {

std::string run_w10(const Args& args) {
  const RunPlan plan = bench_plan("w10-gat.yaml", {"seed=" + std::to_string(args.seed)});
  const RunRecord record = execute_run(plan, bench_registries(), bench_dir, RunObserver{});
  if (record.status != RunStatus::finished) throw std::runtime_error("the W10 run ended " + std::string(to_string(record.status)) + ": " + record.error);
  std::vector<double> ms;
  for (const EpochRecord& e : record.history) ms.push_back(e.seconds * 1e3);
  const double accuracy = record.metrics.at("valid_accuracy");
  std::fprintf(stderr, "W10: %.3f ms an epoch; validation accuracy %.4f\n", median(ms), accuracy);
  char buf[200];
  std::snprintf(buf, sizeof buf, "{\"workload\": \"W10\", \"threads\": %d, \"epochs\": %zu, \"median_epoch_ms\": %.4f, \"valid_accuracy\": %.4f}",
                args.threads, record.history.size(), median(ms), accuracy);
  return buf;
}

}  // namespace attn::bench
