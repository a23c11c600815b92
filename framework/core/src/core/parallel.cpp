// parallel_for's chunks and the installed scheduler (attnlab/parallel.hpp).
#include "attnlab/parallel.hpp"

#include <algorithm>
#include <utility>

namespace attn {
namespace {

ChunkScheduler installed;                // empty: chunks in order on the calling thread
thread_local bool running_chunk = false;

// Marks this thread as running a chunk while it lives.
class ChunkScope {
 public:
  ChunkScope() : outer_(running_chunk) { running_chunk = true; }
  ~ChunkScope() { running_chunk = outer_; }
  ChunkScope(const ChunkScope&) = delete;
  ChunkScope& operator=(const ChunkScope&) = delete;

 private:
  bool outer_;
};

}  // namespace

void set_chunk_scheduler(ChunkScheduler scheduler) { installed = std::move(scheduler); }

bool inside_chunk() { return running_chunk; }

void parallel_for_chunks(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& body) {
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t chunks = (n + grain - 1) / grain;
  const auto run = [&](std::size_t c) {
    const ChunkScope scope;
    body(c * grain, std::min(n, (c + 1) * grain));
  };
  if (!installed || chunks == 1 || running_chunk) {
    for (std::size_t c = 0; c < chunks; ++c) run(c);
    return;
  }
  installed(chunks, run);
}

std::size_t chunk_size(std::size_t n, std::size_t target, std::size_t minimum, std::size_t multiple) {
  multiple = std::max<std::size_t>(multiple, 1);
  const std::size_t even = (n + std::max<std::size_t>(target, 1) - 1) / std::max<std::size_t>(target, 1);
  const std::size_t size = std::max({even, minimum, std::size_t{1}});
  return (size + multiple - 1) / multiple * multiple;
}

}  // namespace attn
