// W8 (BENCHMARKS.md): d2l 1.0's ViT at 96 x 96 (bench/w8-vit.yaml): the median time of a
// training step (forward, backward and SGD update of a batch of 128 images) over 4 steps after
// 1, and its fraction of the GEMM limit, as W3 counts it (bench/w3_encoder_block.cpp).
//
// The limit: the model's matrix products for B images of P patches of p x p pixels (c
// channels), n = P + 1 tokens, width d, MLP width f, L blocks and k classes, 2mnk each:
//   forward F = 2 B P (c p^2) d                  (the patch embedding, a convolution of stride p)
//             + L (8 B n d^2 + 4 B n d f + 4 B n^2 d)   (Q, K, V, W_o; the MLP's two; scores and pooling)
//             + 2 B d k                           (the head)
//   forward + backward = 3F;  fraction_of_gemm_limit = 3F / (time x threads x R), R the
// single-thread cblas_sgemm rate of a 512 x 512 x 512 product timed after every step (SgemmBurst).
#include <cstdio>
#include <string>

#include "timing.hpp"
#include "training_steps.hpp"
#include "workloads.hpp"

namespace attn::bench {

std::string run_w8(const Args& args) {
  RunPlan plan;
  const auto run = built_bench_run("w8-vit.yaml", {"seed=" + std::to_string(args.seed)}, plan);
  SgemmBurst reference(512, 4);
  std::vector<double> reference_us;
  const StepTimes t = time_training_steps(*run, plan, 1, 4, [&] { reference_us.push_back(median_us([&] { reference(); }, 0, 1)); });
  const double rate = reference.flops() / median(reference_us) / 1e3;  // GFLOP/s of one thread
  const double B = 128, P = 36, c = 1, p = 16, n = P + 1, d = 512, f = 2048, L = 2, k = 10;
  const double forward = 2 * B * P * (c * p * p) * d + L * (8 * B * n * d * d + 4 * B * n * d * f + 4 * B * n * n * d) + 2 * B * d * k;
  const double gflop = 3 * forward / 1e9, gflops = gflop / (t.median_ms / 1e3);
  const double fraction = gflops / (rate * args.threads);
  std::fprintf(stderr, "W8: %.1f ms a step, %.1f GFLOP (3F), %.1f GFLOP/s = %.3f of %d x sgemm's %.1f GFLOP/s; loss %.4f -> %.4f\n",
               t.median_ms, gflop, gflops, fraction, args.threads, rate, t.first_loss, t.last_loss);
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "{\"workload\": \"W8\", \"threads\": %d, \"median_step_ms\": %.3f, \"gflop\": %.3f, \"gflops\": %.1f, "
                "\"sgemm_gflops\": %.1f, \"fraction_of_gemm_limit\": %.3f, \"first_loss\": %.4f, \"last_loss\": %.4f}",
                args.threads, t.median_ms, gflop, gflops, rate, fraction, t.first_loss, t.last_loss);
  return buf;
}

}  // namespace attn::bench
