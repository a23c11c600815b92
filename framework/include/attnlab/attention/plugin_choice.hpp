// A plugin picked by name, with its options (as a spec writes it: `scoring: additive`,
// `scoring_options: {hidden: 64}`).
#pragma once

#include <string>

#include "attnlab/options.hpp"

namespace attn {

struct PluginChoice {
  std::string name;
  Options options;
  std::string where;  // where the name was written (file:line:col), for errors
};

// The plugin named by option `key` (default `fallback`), with its options from `key`_options.*.
PluginChoice plugin_choice(const Options& options, const std::string& key, const std::string& fallback);

}  // namespace attn
