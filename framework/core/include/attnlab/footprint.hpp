// Memory a run will use, estimated before it is allocated, so that a run too big for the
// machine is refused at the spec key responsible, in a second, instead of dying of
// std::bad_alloc or the kernel's OOM killer after minutes. Who estimates what:
//   - a dataset, its data, from its options before loading (DatasetSource::footprint);
//   - a model's parameters and tables, counted as the model is built, each checked before it is
//     allocated (ParamStore::limit_kept_bytes);
//   - a batch's activations and decoding, by the lab, from one example's measured graph
//     (lab/runner/memory_plan.*).
#pragma once

#include <string>
#include <vector>

#include "attnlab/options.hpp"

namespace attn {

struct MemoryUse {
  std::string what;   // "the training split: 2000 examples x 10 steps of token ids"
  double bytes = 0;
  std::string where;  // the key responsible, file:line:col ("" when it is not written)
};
using Footprint = std::vector<MemoryUse>;

// Bytes as a person reads them: "512 B", "3.2 KB", "1.5 GB" (powers of 1024).
std::string memory_text(double bytes);

// Where the first of `keys` that the options hold is written ("" when none is).
std::string first_written(const Options& options, const std::vector<std::string>& keys);

}  // namespace attn
