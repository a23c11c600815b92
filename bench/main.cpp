// attnlab-bench WORKLOAD [--threads N] [--seed S]: runs one benchmark workload and prints
// exactly one JSON line on stdout. The PyTorch twins beside this file print the same fields.
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <string>

#include <tbb/task_arena.h>

#include "attnlab/tensor.hpp"
#include "lab/runner/chunk_scheduler.hpp"
#include "workloads.hpp"

int main(int argc, char** argv) {
  const std::map<std::string, std::function<std::string(const attn::bench::Args&)>> workloads = {
      {"gemm", attn::bench::run_gemm},
      {"W1", attn::bench::run_w1},
      {"W2", attn::bench::run_w2},
      {"W2-lstm", attn::bench::run_w2_lstm},
      {"W2-rnn", attn::bench::run_w2_rnn},
      {"W3", attn::bench::run_w3},
      {"W4", attn::bench::run_w4},
      {"W5", attn::bench::run_w5},
      {"W7", attn::bench::run_w7},
      {"W8", attn::bench::run_w8},
      {"W9", attn::bench::run_w9},
      {"W10", attn::bench::run_w10},
  };
  auto usage = [&] {
    std::fprintf(stderr, "usage: attnlab-bench WORKLOAD [--threads N] [--seed S]\nworkloads:");
    for (const auto& w : workloads) std::fprintf(stderr, " %s", w.first.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  };
  if (argc < 2) return usage();
  const auto it = workloads.find(argv[1]);
  if (it == workloads.end()) {
    std::fprintf(stderr, "attnlab-bench: unknown workload '%s'\n", argv[1]);
    return usage();
  }
  attn::bench::Args args;
  for (int i = 2; i < argc; ++i) {
    if (i + 1 < argc && !std::strcmp(argv[i], "--threads")) {
      args.threads = std::stoi(argv[++i]);
    } else if (i + 1 < argc && !std::strcmp(argv[i], "--seed")) {
      args.seed = std::stoull(argv[++i]);
    } else {
      std::fprintf(stderr, "attnlab-bench: unexpected argument '%s'\n", argv[i]);
      return usage();
    }
  }
  attn::keep_tensor_memory_in_heap();
  attn::lab::schedule_chunks_on_tbb();  // as attnlab run does: one run's work on --threads cores
  tbb::task_arena arena(args.threads);
  return arena.execute([&] {
    try {
      std::printf("%s\n", it->second(args).c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attnlab-bench %s: %s\n", argv[1], e.what());
      return 1;
    }
    return 0;
  });
}
