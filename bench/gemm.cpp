// Matrix-product overhead: attnlab's matmul/bmm (tensor allocation + cblas_sgemm) against
// direct cblas_sgemm calls on preallocated buffers of the same shapes.
// ratio = cblas time / attnlab time (1.0 = no overhead; the target is >= 0.8).
#include <cblas.h>

#include <cstdio>
#include <string>

#include "attnlab/rng.hpp"
#include "attnlab/tensor.hpp"
#include "timing.hpp"
#include "workloads.hpp"

namespace attn::bench {
namespace {

Tensor random(const Shape& s, Rng& rng) {
  Tensor t = Tensor::from_shape(s);
  for (float& v : t) v = rng.normal();
  return t;
}

struct Row {
  std::string op, shape;
  double attnlab_us, cblas_us;
};

}  // namespace

double sgemm_gflops(std::size_t m, std::size_t n, std::size_t k, int iters) {
  Rng rng(1);
  const Tensor a = random({m, k}, rng), b = random({k, n}, rng);
  Tensor c = Tensor::from_shape({m, n});
  const double us = median_us([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f,
                a.data(), static_cast<int>(k), b.data(), static_cast<int>(n), 0.0f, c.data(), static_cast<int>(n));
  }, 3, iters);
  return 2.0 * static_cast<double>(m * n * k) / us / 1e3;
}

std::string run_gemm(const Args& args) {
  Rng rng(args.seed);
  std::vector<Row> rows;
  {
    const Tensor a = random({512, 512}, rng), b = random({512, 512}, rng);
    Tensor c = Tensor::from_shape({512, 512});
    const auto [ours, direct] = paired_median_us([&] { c = matmul(a, b); }, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 512, 512, 512, 1.0f, a.data(), 512,
                  b.data(), 512, 0.0f, c.data(), 512);
    }, 5, 100);
    rows.push_back({"matmul", "512x512 @ 512x512", ours, direct});
  }
  {
    const Tensor a = random({64, 32, 32}, rng), b = random({64, 32, 32}, rng);
    Tensor c = Tensor::from_shape({64, 32, 32});
    const auto [ours, direct] = paired_median_us([&] { c = bmm(a, b); }, [&] {
      for (int i = 0; i < 64; ++i)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 32, 32, 32, 1.0f,
                    a.data() + i * 1024, 32, b.data() + i * 1024, 32, 0.0f, c.data() + i * 1024, 32);
    }, 20, 1000);
    rows.push_back({"bmm", "64 x (32x32 @ 32x32)", ours, direct});
  }
  std::string out = "{\"workload\": \"gemm\", \"threads\": " + std::to_string(args.threads) +
                    ", \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%s{\"op\": \"%s\", \"shape\": \"%s\", \"attnlab_us\": %.1f, \"cblas_us\": %.1f, "
                  "\"ratio\": %.3f}",
                  i ? ", " : "", rows[i].op.c_str(), rows[i].shape.c_str(), rows[i].attnlab_us,
                  rows[i].cblas_us, rows[i].cblas_us / rows[i].attnlab_us);
    out += buf;
  }
  char rate[96];
  std::snprintf(rate, sizeof rate, "], \"sgemm_512_gflops\": %.1f}", sgemm_gflops(512, 512, 512, 50));
  return out + rate;
}

}  // namespace attn::bench
