// A string option that names one of a fixed list of choices (a model's `pool`, `block`,
// `positional`).
#pragma once

#include <string>
#include <vector>

#include "attnlab/options.hpp"

namespace attn {

// The string option `key` (or `fallback`), which must be one of `allowed`: else a SpecError at
// the key listing them.
std::string option_choice(const Options& o, const std::string& key, const std::string& fallback,
                          const std::vector<std::string>& allowed);

}  // namespace attn
