// The lab's scheduler for the core's parallel_for (attnlab/parallel.hpp): TBB.
#pragma once

#include "attnlab/parallel.hpp"

namespace attn::lab {

// Runs the chunks as tasks of the caller's TBB arena, isolated (below).
ChunkScheduler tbb_chunk_scheduler();

// From now on every parallel_for runs its chunks as tasks of the TBB arena its caller is in
// (the runner's, of --threads threads, for a run; TBB's default arena of every core otherwise),
// isolated so that a thread waiting for a run's chunks takes no other run's work meanwhile, and
// BLAS keeps one thread (its own threads would oversubscribe the cores). Call it once, at the
// start of a program.
void schedule_chunks_on_tbb();

}  // namespace attn::lab
