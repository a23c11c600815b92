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
// The rate of one cblas_sgemm of m x k by k x n on this thread (BLAS as set), GFLOP/s: 2mnk
// floating-point operations over the median time of `iters` calls into preallocated buffers.
double sgemm_gflops(std::size_t m, std::size_t n, std::size_t k, int iters);
std::string run_w1(const Args& args);    // W1: attention pooling per scoring function
std::string run_w2(const Args& args);    // W2: Bahdanau seq2seq training on the reverse task
std::string run_w2_lstm(const Args& args);  // W2 with the LSTM cell
std::string run_w2_rnn(const Args& args);   // W2 with the plain (Elman) cell
std::string run_w3(const Args& args);    // W3: one Transformer encoder block, lengths 128 and 512
std::string run_w4(const Args& args);    // W4: Nadaraya-Watson regression, fixed and learned width
std::string run_w5(const Args& args);    // W5: d2l's Transformer trained on fra-eng
std::string run_w7(const Args& args);    // W7: greedy and beam decoding, with and without the KV cache

}  // namespace attn::bench
