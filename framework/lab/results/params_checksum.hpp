// A checksum of a model's parameters, stored with each run of a results file (attribute
// params_checksum), so that a file whose parameters were edited after training is told from one
// whose stored metrics, maps and history were measured with them (`attnlab inspect`).
//   checksum = FNV-1a 64 over every parameter in name order: its dotted name, its shape, and its
//              float32 values as bytes; written "fnv1a64:<16 hex digits>"
// A hash against accidents and edits, not against forgery.
#pragma once

#include <string>

#include "attnlab/tensor.hpp"

namespace attn {

std::string params_checksum(const NamedTensors& params);

}  // namespace attn
