// sequence_task's classification tasks: one label per digit string, not a target sequence.
//   sorted:   is the string non-decreasing? (half the strings are drawn sorted)  classes: no, yes
//   majority: the digit seen most often (ties: the smallest)                      classes: 0..9
// The strings reach a model as token sets (VectorData, kind tokens) without <eos>.
#pragma once

#include "attnlab/data/dataset.hpp"

namespace attn {

bool is_classification_task(const std::string& task);

struct DigitClassification {
  std::string task;
  std::size_t min_len = 3, max_len = 8, num_train = 2000, num_valid = 200;
};

// The training and validation splits drawn from `rng`, the probe set from `probe_rng`.
VectorData digit_classification(const DigitClassification& spec, Rng& rng, Rng& probe_rng);

}  // namespace attn
