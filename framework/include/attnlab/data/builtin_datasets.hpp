// Registration of the built-in datasets (called by register_builtins).
#pragma once

#include "attnlab/registries.hpp"

namespace attn {

void register_dataset_regression1d(Registries& r);
void register_dataset_sequence_task(Registries& r);
void register_dataset_parallel_corpus(Registries& r);

}  // namespace attn
