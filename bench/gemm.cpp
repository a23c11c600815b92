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

SgemmBurst::SgemmBurst(std::size_t n, int count) : n_(n), count_(count), a_(n * n), b_(n * n), c_(n * n) {
  Rng rng(1);
  for (float& v : a_) v = rng.normal();
  for (float& v : b_) v = rng.normal();
}

void SgemmBurst::operator()() {
  const int n = static_cast<int>(n_);
  for (int i = 0; i < count_; ++i)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a_.data(), n, b_.data(), n, 0.0f, c_.data(), n);
}

double SgemmBurst::flops() const { return 2.0 * static_cast<double>(n_ * n_ * n_) * count_; }

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
  SgemmBurst reference(512, 1);
  std::snprintf(rate, sizeof rate, "], \"sgemm_512_gflops\": %.1f}", reference.flops() / median_us([&] { reference(); }, 3, 50) / 1e3);
  return out + rate;
}

}  // namespace attn::bench
