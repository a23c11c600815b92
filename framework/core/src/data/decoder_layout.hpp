// A sequence-to-sequence task laid out for a decoder-only model (sequence_task's option
// layout: decoder), as Kazemnejad et al. (2023) train copy and reverse: each example is one
// token sequence, the source, a separator "=", then the target and <eos>, read left to right.
// The model predicts every next token and is scored on the target's, the source being given:
//   inputs  x = s_1 .. s_L = t_1 .. t_M                 (2L + 1 tokens for copy and reverse)
//   labels  y_i = x_{i+1} from the separator on (t_1 .. t_M, <eos>); -1 on the source
// A classifier of vectors (language_model) then reports token accuracy and exact match (every
// target token right given the ones before: what greedy decoding gets right).
#pragma once

#include "attnlab/data/dataset.hpp"

namespace attn {

// The decoder-only layout of `data` (token sources and targets of one vocabulary).
VectorData decoder_layout(const SequenceData& data);

}  // namespace attn
