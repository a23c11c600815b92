// A plugin picked by name, with its options (as a spec writes it: `scoring: additive`,
// `scoring_options: {hidden: 64}`).
#pragma once

#include <string>

#include "attnlab/options.hpp"

namespace attn {

struct PluginChoice {
  std::string name;
  Options options;
};

}  // namespace attn
