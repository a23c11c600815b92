// W9 (BENCHMARKS.md): d2l-neu's attention-only character language model (bench/w9-char-lm.yaml):
// the median time of a training step (forward, backward and AdamW update of 64 windows of 128
// characters) over 10 steps after 1, and of an evaluation at context 512: the loss of 64 windows
// of 512 characters without a graph, the model built at that context (as evaluation.lengths
// builds it), median of 5 after 1.
#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>

#include "timing.hpp"
#include "training_steps.hpp"
#include "workloads.hpp"

namespace attn::bench {

std::string run_w9(const Args& args) {
  const std::string seed = "seed=" + std::to_string(args.seed);
  RunPlan plan;
  const auto run = built_bench_run("w9-char-lm.yaml", {seed}, plan);
  const StepTimes t = time_training_steps(*run, plan, 1, 10);

  RunPlan long_plan;
  const auto at512 = built_bench_run("w9-char-lm.yaml", {seed, "dataset.num_steps=512"}, long_plan);
  std::vector<std::size_t> rows(64);
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  double eval_loss = 0.0;
  const double eval_ms = median_us([&] {
    const NoGrad no_grad;
    const LossResult l = at512->model->evaluation_loss(rows);
    eval_loss = l.sum / std::max(l.count, 1.0);
  }, 1, 5) / 1e3;
  std::fprintf(stderr, "W9: %.2f ms a step (loss %.4f -> %.4f); evaluation at 512: %.2f ms\n", t.median_ms, t.first_loss,
               t.last_loss, eval_ms);
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"workload\": \"W9\", \"threads\": %d, \"median_step_ms\": %.3f, \"eval512_ms\": %.3f, \"first_loss\": %.4f, "
                "\"last_loss\": %.4f}",
                args.threads, t.median_ms, eval_ms, t.first_loss, t.last_loss);
  return buf;
}

}  // namespace attn::bench
