// Work inside one run, split over the cores without changing a single bit of the result.
//
//   parallel_for(n, grain, body)   calls body(begin, end) for the chunks [0, grain),
//                                  [grain, 2 grain), ... of [0, n), the last one shorter.
//
// The chunks depend on n and grain only, never on how many threads there are, and each chunk
// writes its own part of the output (a reduction writes one partial per chunk, which the caller
// adds in chunk order). So a result is the same to the last bit at any thread count: a chunk
// computes the same floats whichever thread runs it, and when.
//
// The core has no threads of its own (it links no TBB). Without a scheduler the chunks run one
// after another on the calling thread. A program installs one with set_chunk_scheduler: the
// lab's runs the chunks as tasks of the TBB arena the runs are tasks of (`attnlab run --threads`),
// so one run, or a sweep of many, fills the cores without oversubscribing them. A body runs
// inside a chunk: a parallel_for called from it runs its chunks in order on that thread.
#pragma once

#include <cstddef>
#include <functional>

namespace attn {

// Runs chunk(i) for every i in [0, chunks), in any order and on any threads, and returns when
// all have returned. An exception thrown by a chunk reaches the caller.
using ChunkScheduler = std::function<void(std::size_t chunks, const std::function<void(std::size_t)>& chunk)>;

// Installs the scheduler every parallel_for uses from now on (an empty one: chunks in order on
// the calling thread). Install it once, before any work starts.
void set_chunk_scheduler(ChunkScheduler scheduler);

// Whether this thread is running a chunk now (a parallel_for called here runs in order).
bool inside_chunk();

// parallel_for as above, for any n and grain (grain 0 counts as 1).
void parallel_for_chunks(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& body);

// The same, a single chunk called directly (no scheduler, no std::function).
template <class Body>
void parallel_for(std::size_t n, std::size_t grain, Body&& body) {
  if (n == 0) return;
  if (n <= grain) {
    body(std::size_t{0}, n);
    return;
  }
  parallel_for_chunks(n, grain, body);
}

// Floats per chunk of element-wise work (bound by memory: worth a task only in large pieces;
// a multiple of every vector width).
constexpr std::size_t floats_per_chunk = std::size_t{1} << 14;

// Rows per chunk for row-wise work on rows of `width` floats: at least floats_per_chunk a chunk.
inline std::size_t rows_per_chunk(std::size_t width) {
  return width >= floats_per_chunk ? 1 : floats_per_chunk / (width == 0 ? 1 : width);
}

// The number of items per chunk that splits n items into about `target` chunks of at least
// `minimum` items each, as a multiple of `multiple` (which a chunk's kernel may prefer). It
// depends on its arguments only, so a caller that derives them from shapes keeps its chunks
// fixed.
std::size_t chunk_size(std::size_t n, std::size_t target, std::size_t minimum, std::size_t multiple = 1);

}  // namespace attn
