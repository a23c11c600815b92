// The directory of workloads.hpp's bench_dir, from the definition bench/meson.build gives this file alone.
#include "workloads.hpp"

namespace attn::bench {

const char* const bench_dir = ATTNLAB_BENCH_DIR;

}  // namespace attn::bench
