// The workloads attnlab-bench runs; each returns its one-line JSON result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn::bench {

// bench/ in the repository (its specs and datasets), compiled into bench_dir.cpp alone so that
// no other benchmark file depends on where the repository is checked out (.ci/setup's compiler
// cache serves them in every clone).
extern const char* const bench_dir;

struct Args {
  int threads = 1;
  std::uint64_t seed = 0;
};

std::string run_gemm(const Args& args);  // matmul/bmm against direct cblas_sgemm
// `count` cblas_sgemm products of n x n by n x n on this thread (BLAS as set) into preallocated
// buffers, per call: the reference whose rate W3's GEMM limit divides by, timed in turns with
// the workload (paired_median_us) so that both see the same machine.
class SgemmBurst {
 public:
  SgemmBurst(std::size_t n, int count);
  void operator()();
  double flops() const;  // 2 n^3 count
 private:
  std::size_t n_;
  int count_;
  std::vector<float> a_, b_, c_;
};
std::string run_w1(const Args& args);    // W1: attention pooling per scoring function
std::string run_w2(const Args& args);    // W2: Bahdanau seq2seq training on the reverse task
std::string run_w2_lstm(const Args& args);  // W2 with the LSTM cell
std::string run_w2_rnn(const Args& args);   // W2 with the plain (Elman) cell
std::string run_w3(const Args& args);    // W3: one Transformer encoder block, lengths 128 and 512
std::string run_w4(const Args& args);    // W4: Nadaraya-Watson regression, fixed and learned width
std::string run_w5(const Args& args);    // W5: d2l's Transformer trained on fra-eng
std::string run_w7(const Args& args);    // W7: greedy and beam decoding, with and without the KV cache
std::string run_w8(const Args& args);    // W8: d2l's ViT at 96 x 96, a training step and the GEMM limit
std::string run_w9(const Args& args);    // W9: d2l-neu's attention-only character LM, a step and evaluation at 512
std::string run_w10(const Args& args);   // W10: GAT on the karate club, an epoch

}  // namespace attn::bench
