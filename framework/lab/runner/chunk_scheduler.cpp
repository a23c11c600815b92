#include "lab/runner/chunk_scheduler.hpp"

#include <cstddef>
#include <functional>

#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include "attnlab/tensor.hpp"

namespace attn::lab {

ChunkScheduler tbb_chunk_scheduler() {
  return [](std::size_t chunks, const std::function<void(std::size_t)>& chunk) {
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t i) { chunk(i); }, tbb::simple_partitioner{});
    });
  };
}

void schedule_chunks_on_tbb() {
  set_blas_threads(1);
  set_chunk_scheduler(tbb_chunk_scheduler());
}

}  // namespace attn::lab
