// W3 (BENCHMARKS.md): one Transformer encoder block, d_model 256, 8 heads (scaled dot product,
// projections without bias), FFN 256 -> 1024 -> 256 with ReLU, dropout 0. X ~ N(0, 1) plus the
// sinusoidal positional encoding; one iteration = forward and backward of sum(output) to every
// parameter and to X. Batch 16, sequence lengths 128 and 512.
//
// The GEMM-bound limit: the block's matrix products, for B sequences of n tokens
// (N = B n), model size d, FFN size f, counted as 2mnk each:
//   forward F = 2N(4d^2 + 2df) + 4Bn^2 d
//     (Q, K, V and the output projection: 4 products N x d x d; the FFN's two: N x d x f and
//      N x f x d; the scores and the weighted values: B h products n x n x p each, h p = d)
//   forward + backward = 3F (the backward has two products per forward product)
// fraction_of_gemm_limit = 3F / (time x threads x R), R the single-thread cblas_sgemm rate of a
// 512 x 512 x 512 product (as `attnlab-bench gemm` reports it), measured in the same run,
// in turns with the block's iterations: each iteration is followed by 10 such products, and
// both medians are taken over the same stretch of time (on a shared machine, the sgemm rate
// itself moves by 10% from minute to minute). The
// softmax, layer norms, residual adds and ReLU (O(N d) and O(B h n^2) element operations) are
// not counted: the limit is what the products alone would take at sgemm's rate.
#include <cstdio>

#include "lab/builtins.hpp"
#include "attnlab/attention/positions.hpp"
#include "attnlab/models/transformer_blocks.hpp"
#include "attnlab/nn/init.hpp"
#include "timing.hpp"
#include "workloads.hpp"

namespace attn::bench {

std::string run_w3(const Args& args) {
  Registries registries;
  register_builtins(registries);
  Rng rng(args.seed);
  const TransformerBlockConfig config;  // its defaults are W3's sizes
  std::string out = "{\"workload\": \"W3\", \"threads\": " + std::to_string(args.threads) + ", \"results\": [";
  for (const std::size_t length : {128, 512}) {
    ParamStore store;
    const ParamScope scope(store, rng);
    const TransformerEncoderBlock block(registries, scope.child("block"), config);
    const Positions positional(registries, PluginChoice{"sinusoidal", {}, ""}, scope.child("positional"),
                               PositionsOf{config.d_model, config.heads, length});
    const Var x = leaf(initialised({16, length, config.d_model}, Init::normal(1.0f), rng));
    SgemmBurst reference(512, 10);
    const auto [us, reference_us] = paired_median_us([&] {
      x.zero_grad();
      store.zero_grad();
      sum(block(positional(x, ForwardContext::evaluation(), 0.0f), std::nullopt, ForwardContext::evaluation())).backward();
    }, [&] { reference(); }, 3, 20);
    const double rate = reference.flops() / reference_us / 1e3;  // GFLOP/s
    const double batch = 16, n = static_cast<double>(length), d = static_cast<double>(config.d_model),
                 f = static_cast<double>(config.ffn_hidden);
    const double flops = 3 * (2 * batch * n * (4 * d * d + 2 * d * f) + 4 * batch * n * n * d);
    const double gflops = flops / us / 1e3, fraction = gflops / (rate * args.threads);
    std::fprintf(stderr, "W3 length %zu: %.1f ms, %.2f GFLOP (3F), %.1f GFLOP/s = %.3f of sgemm's %.1f GFLOP/s\n", length,
                 us / 1000, flops / 1e9, gflops, fraction, rate);
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%s{\"length\": %zu, \"median_ms\": %.3f, \"gflop\": %.3f, \"gflops\": %.1f, \"sgemm_gflops\": %.1f, "
                  "\"fraction_of_gemm_limit\": %.3f}",
                  length == 128 ? "" : ", ", length, us / 1000, flops / 1e9, gflops, rate, fraction);
    out += buf;
  }
  return out + "]}";
}

}  // namespace attn::bench
