// W3 (BENCHMARKS.md): one Transformer encoder block, d_model 256, 8 heads (scaled dot product,
// projections without bias), FFN 256 -> 1024 -> 256 with ReLU, dropout 0. X ~ N(0, 1) plus the
// sinusoidal positional encoding; one iteration = forward and backward of sum(output) to every
// parameter and to X. Batch 16, sequence lengths 128 and 512.
#include <cstdio>

#include "lab/builtins.hpp"
#include "attnlab/attention/positional_encoding.hpp"
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
    const PositionalEncoding positional(scope.child("positional"), "sinusoidal", length, config.d_model);
    const Var x = leaf(initialised({16, length, config.d_model}, Init::normal(1.0f), rng));
    const double us = median_us([&] {
      x.zero_grad();
      store.zero_grad();
      sum(block(positional(x, ForwardContext::evaluation()), std::nullopt, ForwardContext::evaluation())).backward();
    }, 3, 20);
    std::fprintf(stderr, "W3 length %zu: %.1f ms\n", length, us / 1000);
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s{\"length\": %zu, \"median_ms\": %.3f}", length == 128 ? "" : ", ", length, us / 1000);
    out += buf;
  }
  return out + "]}";
}

}  // namespace attn::bench
