// Tensor kernels: BLAS products against xtensor-blas as an independent reference,
// broadcasting reductions, shape errors; where tensor memory comes from.
#include <malloc.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include "attnlab/attnlab.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;
using attn::test::reference_product;

TEST_CASE("matmul folds leading axes and agrees with xt::linalg::dot", "[tensor][blas]") {
  const Tensor a = randn({2, 3, 4}, 1), b = randn({4, 5}, 2);
  const Tensor c = matmul(a, b);
  REQUIRE(shape_of(c) == Shape{2, 3, 5});
  for (std::size_t i = 0; i < 2; ++i) {
    const Tensor ai = xt::view(a, i);
    const Tensor ref = xt::linalg::dot(ai, b);
    CHECK(xt::allclose(xt::view(c, i), ref, 1e-5, 1e-5));
  }
}

TEST_CASE("bmm with every transpose flag agrees with per-batch xt::linalg::dot", "[tensor][blas]") {
  const Tensor a = randn({3, 4, 5}, 3), b = randn({3, 5, 2}, 4);
  const Tensor at = xt::transpose(a, {0, 2, 1}), bt = xt::transpose(b, {0, 2, 1});
  const Tensor c = bmm(a, b);
  REQUIRE(shape_of(c) == Shape{3, 4, 2});
  CHECK(xt::allclose(bmm(at, b, true, false), c, 1e-5, 1e-5));
  CHECK(xt::allclose(bmm(a, bt, false, true), c, 1e-5, 1e-5));
  CHECK(xt::allclose(bmm(at, bt, true, true), c, 1e-5, 1e-5));
  for (std::size_t i = 0; i < 3; ++i) {
    const Tensor ai = xt::view(a, i), bi = xt::view(b, i);
    CHECK(xt::allclose(xt::view(c, i), xt::linalg::dot(ai, bi), 1e-5, 1e-5));
  }
}

TEST_CASE("gemm agrees with a double-precision product on small and odd shapes, every transpose and beta", "[tensor][blas]") {
  // Sizes around vector widths (8 or 16 floats) and sgemm's blocking: 1, 7, 16, 17, 33, 64, 65.
  const std::size_t sizes[] = {1, 7, 16, 17, 33, 64, 65};
  const std::uint64_t seed = 11;
  for (const std::size_t m : sizes)
    for (const std::size_t n : sizes)
      for (const std::size_t k : {std::size_t{1}, std::size_t{8}, std::size_t{17}, std::size_t{64}})
        for (int flags = 0; flags < 4; ++flags) {
          const bool ta = flags & 1, tb = flags & 2;
          const Tensor a = randn({m * k}, seed + m), b = randn({k * n}, seed + n);
          for (const float beta : {0.0f, 1.0f, -0.5f}) {
            const float alpha = beta == 0.0f ? 1.0f : 0.75f;
            // C holds NaN when beta is 0: it must not be read then (sgemm's contract).
            std::vector<float> c(m * n, beta == 0.0f ? std::nanf("") : 0.25f);
            const auto expected = reference_product(ta, tb, m, n, k, alpha, a, b, beta, c);
            gemm(ta, tb, m, n, k, alpha, a.data(), b.data(), beta, c.data());
            double worst = 0.0;
            for (std::size_t i = 0; i < m * n; ++i)
              worst = std::max(worst, std::abs(c[i] - expected[i]) / (1.0 + std::abs(expected[i])));
            INFO(m << " x " << n << " x " << k << (ta ? " A^T" : "") << (tb ? " B^T" : "") << " beta " << beta);
            CHECK(worst < 1e-5);  // NaN fails this too
          }
        }
}

TEST_CASE("products reject mismatched shapes with the shapes in the message", "[tensor][errors]") {
  CHECK_THROWS_WITH(matmul(randn({2, 3}, 1), randn({4, 5}, 2)), Catch::Contains("[2, 3]") && Catch::Contains("[4, 5]"));
  CHECK_THROWS_WITH(bmm(randn({2, 3, 4}, 1), randn({2, 5, 6}, 2)), Catch::Contains("inner sizes differ"));
  CHECK_THROWS_AS(bmm(randn({2, 3, 4}, 1), randn({3, 4, 6}, 2)), std::invalid_argument);
}

TEST_CASE("empty products give zeros, not garbage", "[tensor][blas]") {
  const Tensor c = bmm(Tensor::from_shape({2, 3, 0}), Tensor::from_shape({2, 0, 4}));
  REQUIRE(shape_of(c) == Shape{2, 3, 4});
  for (float v : c) CHECK(v == 0.0f);
}

TEST_CASE("sum_axis and sum_to reduce broadcast axes", "[tensor]") {
  const Tensor x = randn({2, 3, 4}, 5);
  CHECK(xt::allclose(sum_axis(x, 1, false), xt::sum(x, {1}), 1e-5, 1e-5));
  CHECK(shape_of(sum_axis(x, 2, true)) == Shape{2, 3, 1});
  CHECK(xt::allclose(sum_to(x, {4}), xt::sum(x, {0, 1}), 1e-5, 1e-5));
  CHECK(xt::allclose(sum_to(x, {2, 1, 4}), xt::sum(x, {1}, xt::keep_dims), 1e-5, 1e-5));
  CHECK(xt::allclose(sum_to(x, {3, 1}), xt::sum(x, {0, 2}, xt::keep_dims), 1e-5, 1e-5));
  CHECK_THROWS_AS(sum_to(x, {5}), std::invalid_argument);
}

namespace {
// The "THPeligible" line of /proc/self/smaps for the mapping that holds p: whether the kernel
// may back it with huge pages (the madvise flag; independent of whether it found one).
std::string huge_page_eligibility(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 && line.find(' ') < line.find(':')) inside = at >= begin && at < end;
    if (inside && line.rfind("THPeligible:", 0) == 0) return line.substr(line.find_first_not_of(' ', 12));
  }
  return "mapping not found";
}
}  // namespace

// Run alone, in a fresh process (the test below): in a process that has freed large blocks
// before, glibc hands a freed (advised) chunk out again, and the smaller block is not a fresh
// mapping whose advice can be read.
TEST_CASE("tensor memory, in a process of its own: 64-byte aligned; the huge pages inside blocks of 16 MiB and more advised",
          "[.][huge-pages]") {
  // Both blocks below get mappings of their own: from glibc's heap, one could land where an
  // earlier test's advised block was freed, and a mapping keeps its advice after a free.
  // (mallopt returns 0 under AddressSanitizer, whose allocator maps large blocks on its own.)
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  const Tensor small = xt::ones<float>({3, 5});
  CHECK(reinterpret_cast<std::uintptr_t>(small.data()) % 64 == 0);
  Tensor large = xt::zeros<float>(Shape{huge_page_tensor_bytes / 4096, 1024});  // 16 MiB
  REQUIRE(reinterpret_cast<std::uintptr_t>(large.data()) % 64 == 0);
  large(large.shape(0) - 1, 1023) = 1.0f;
  CHECK(xt::sum(large)() == 1.0f);
  const std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto first_whole_page = reinterpret_cast<const void*>((reinterpret_cast<std::uintptr_t>(large.data()) + huge - 1) / huge * huge);
  const Tensor below = xt::zeros<float>(Shape{huge_page_tensor_bytes / 4096 - 1, 1024});  // 16 MiB less 4 KiB
  const auto below_page = reinterpret_cast<const void*>((reinterpret_cast<std::uintptr_t>(below.data()) + huge - 1) / huge * huge);
  // Where the kernel offers transparent huge pages on request, the large block's whole pages were
  // advised (their mapping is eligible) and the smaller block's were not; where it offers them
  // never, nothing was asked of it.
  const std::string setting = attn::test::read_text("/sys/kernel/mm/transparent_hugepage/enabled");
  INFO("transparent_hugepage/enabled: " << setting);
  if (setting.find("[madvise]") != std::string::npos) {
    CHECK(huge_page_eligibility(first_whole_page) == "1");
    CHECK(huge_page_eligibility(below_page) == "0");
  }
  // Zero elements still give a block; a count whose bytes overflow is refused before anything
  // is asked of malloc (which would be asked for the wrapped-around, small size).
  CHECK(Tensor::from_shape({0}).size() == 0);
  TensorAllocator<float> allocator;
  CHECK_THROWS_AS(allocator.allocate(std::size_t(-1) / 2), std::bad_array_new_length);
}

TEST_CASE("tensor memory: 64-byte aligned; the huge pages inside blocks of 16 MiB and more advised", "[tensor][memory]") {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto out = attn::test::command_output(self + " \"[huge-pages]\" 2>&1");
  INFO(out.text);
  CHECK(out.status == 0);
  CHECK_THAT(out.text, Catch::Contains("1 test case"));  // it ran, and passed
}
