// The workloads attnlab-bench runs; each returns its one-line JSON result.
#pragma once

#include <cstdint>
#include <string>

namespace attn::bench {

struct Args {
  int threads = 1;
  std::uint64_t seed = 0;
};

std::string run_gemm(const Args& args);  // matmul/bmm against direct cblas_sgemm
std::string run_w1(const Args& args);    // W1: attention pooling per scoring function
std::string run_w2(const Args& args);    // W2: Bahdanau seq2seq training on the reverse task
std::string run_w3(const Args& args);    // W3: one Transformer encoder block, lengths 128 and 512

}  // namespace attn::bench
