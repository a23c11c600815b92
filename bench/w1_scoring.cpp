// W1 (bench/BENCHMARKS.md): attention pooling with one scoring function at a time.
// scores -> masked softmax over keys -> bmm with V -> sum -> backward to Q, K, V and the
// scoring parameters. Valid length of item b is n_k - (b mod 3).
#include <cmath>
#include <cstdio>

#include "lab/builtins.hpp"
#include "attnlab/attention/attention.hpp"
#include "attnlab/nn/init.hpp"
#include "timing.hpp"
#include "workloads.hpp"

namespace attn::bench {
namespace {

struct W1Shape {
  const char* name;
  std::size_t batch, nq, nk, d, h;
};

Tensor normal(const Shape& s, float std, Rng& rng) { return initialised(s, Init::normal(std), rng); }

double time_one(const Registries& registries, const std::string& scoring_name, const W1Shape& s, Rng& rng) {
  ParamStore store;
  Options options;
  if (scoring_name == "additive") options.set("hidden", std::to_string(s.h));
  auto scoring = registries.scoring.create(scoring_name, ScoringArgs{ParamScope(store, rng), options, s.d, s.d});
  for (const auto& item : store.items())  // parameters ~ N(0, 1/fan_in)
    item.second.mutable_value() = normal(item.second.shape(), 1.0f / std::sqrt(static_cast<float>(item.second.dim(0))), rng);
  const Var q = leaf(normal({s.batch, s.nq, s.d}, 1.0f, rng));
  const Var k = leaf(normal({s.batch, s.nk, s.d}, 1.0f, rng));
  const Var v = leaf(normal({s.batch, s.nk, s.d}, 1.0f, rng));
  IntTensor lens = IntTensor::from_shape({s.batch});
  for (std::size_t b = 0; b < s.batch; ++b) lens(b) = static_cast<int>(s.nk - b % 3);
  const bool large = s.nq > 100;
  return median_us([&] {
    q.zero_grad(), k.zero_grad(), v.zero_grad();
    store.zero_grad();
    sum(attention_pooling(masked_softmax(scoring->score(q, k), lens), v).output).backward();
  }, 10, large ? 50 : 200);
}

}  // namespace

std::string run_w1(const Args& args) {
  Registries registries;
  register_builtins(registries);
  Rng rng(args.seed);
  const W1Shape shapes[] = {{"small", 64, 10, 10, 32, 32}, {"large", 16, 256, 256, 64, 64}};
  std::string out = "{\"workload\": \"W1_scoring\", \"threads\": " + std::to_string(args.threads) + ", \"results\": [";
  bool first = true;
  for (const W1Shape& s : shapes)
    for (const char* name : {"dot", "scaled_dot", "general", "additive"}) {
      const double us = time_one(registries, name, s, rng);
      std::fprintf(stderr, "W1 %s %s: %.1f us\n", name, s.name, us);
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s{\"scoring\": \"%s\", \"shape\": \"%s\", \"median_us\": %.1f}",
                    first ? "" : ", ", name, s.name, us);
      out += buf;
      first = false;
    }
  return out + "]}";
}

}  // namespace attn::bench
