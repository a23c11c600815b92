// Work inside one run split over cores (attnlab/parallel.hpp): the chunks are fixed by the work
// alone, an error in a chunk reaches the caller, a parallel_for inside a chunk runs in order,
// and the products split by rows, columns or the inner dimension give the same bits at 1, 2
// and 3 threads, and the right ones.
#include <catch2/catch.hpp>

#include <tbb/task_arena.h>

#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "attnlab/parallel.hpp"
#include "attnlab/tensor.hpp"
#include "lab/runner/chunk_scheduler.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::randn;
using attn::test::reference_product;

namespace {

// f() in a TBB arena of `threads` threads, with the lab's scheduler.
template <class F>
auto in_arena(int threads, F&& f) {
  tbb::task_arena arena(threads);
  return arena.execute(std::forward<F>(f));
}

}  // namespace

TEST_CASE("parallel_for: chunks fixed by n and grain, on several threads; errors reach the caller; nested runs in order",
          "[parallel]") {
  std::mutex m;
  std::set<std::pair<std::size_t, std::size_t>> chunks;
  std::set<std::thread::id> threads;
  in_arena(2, [&] {
    parallel_for(1000, 64, [&](std::size_t b, std::size_t e) {
      const std::lock_guard<std::mutex> lock(m);
      chunks.insert({b, e});
      threads.insert(std::this_thread::get_id());
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // long enough for the second thread to take some
    });
  });
  CHECK(chunks.size() == 16);
  CHECK(*chunks.begin() == std::pair<std::size_t, std::size_t>{0, 64});
  CHECK(*chunks.rbegin() == std::pair<std::size_t, std::size_t>{960, 1000});
  CHECK(threads.size() == 2);

  CHECK_THROWS_WITH(in_arena(2, [] { parallel_for(100, 10, [](std::size_t b, std::size_t) {
                                       if (b == 50) throw std::runtime_error("chunk 5 failed");
                                     }); }),
                    "chunk 5 failed");

  std::vector<std::thread::id> inner_threads;
  in_arena(2, [&] {
    parallel_for(2, 1, [&](std::size_t b, std::size_t) {
      if (b != 0) return;
      CHECK(inside_chunk());
      parallel_for(8, 1, [&](std::size_t, std::size_t) { inner_threads.push_back(std::this_thread::get_id()); });
    });
  });
  CHECK(inner_threads.size() == 8);  // in order on the chunk's own thread (no lock needed)
  CHECK(std::set<std::thread::id>(inner_threads.begin(), inner_threads.end()).size() == 1);
  CHECK_FALSE(inside_chunk());
}

TEST_CASE("chunk_size: about `target` chunks, at least `minimum` items, a multiple of `multiple`", "[parallel]") {
  CHECK(chunk_size(1000, 8, 1) == 125);
  CHECK(chunk_size(1000, 8, 1, 16) == 128);
  CHECK(chunk_size(1000, 8, 300) == 300);
  CHECK(chunk_size(5, 8, 1) == 1);
  CHECK(chunk_size(0, 8, 1) == 1);
}

TEST_CASE("gemm split by rows, columns or a long inner dimension: the product, and the same bits at 1, 2 and 3 threads",
          "[parallel][tensor][blas]") {
  struct Shape3 {
    std::size_t m, n, k;
  };
  // rows (m the largest), columns (n the largest), and k at least twice both (partials added in order)
  for (const Shape3 s : {Shape3{700, 90, 300}, Shape3{90, 700, 300}, Shape3{70, 90, 3000}}) {
    for (int flags = 0; flags < 4; ++flags) {
      const bool ta = flags & 1, tb = flags & 2;
      const Tensor a = randn({s.m * s.k}, 5), b = randn({s.k * s.n}, 6);
      for (const float beta : {0.0f, -0.5f}) {
        const float alpha = beta == 0.0f ? 1.0f : 0.75f;
        const std::vector<float> c0(s.m * s.n, beta == 0.0f ? std::nanf("") : 0.25f);
        std::vector<std::vector<float>> results;
        for (const int threads : {1, 2, 3})
          results.push_back(in_arena(threads, [&] {
            std::vector<float> c = c0;
            gemm(ta, tb, s.m, s.n, s.k, alpha, a.data(), b.data(), beta, c.data());
            return c;
          }));
        INFO(s.m << " x " << s.n << " x " << s.k << (ta ? " A^T" : "") << (tb ? " B^T" : "") << " beta " << beta);
        CHECK(results[0] == results[1]);
        CHECK(results[0] == results[2]);
        const auto expected = reference_product(ta, tb, s.m, s.n, s.k, alpha, a, b, beta, c0);
        double worst = 0.0;
        for (std::size_t i = 0; i < expected.size(); ++i)
          worst = std::max(worst, std::abs(results[0][i] - expected[i]) / (1.0 + std::abs(expected[i])));
        CHECK(worst < 1e-4);  // float sums of up to 3000 terms; a chunk missing or added twice is off by O(1)
      }
    }
  }
}
