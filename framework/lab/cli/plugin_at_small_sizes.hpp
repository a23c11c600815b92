// One attention plugin built with given options at small sizes: queries, keys and values of
// width 8; positions for 2 heads of width 4, up to 64 positions. `attnlab keys` builds each
// plugin so with no options to list the options it reads; `attnlab check --option` builds it so
// with the options given, to refuse the ones it does not take before any check runs.
#pragma once

#include <string>

#include "attnlab/attnlab.hpp"
#include "lab/conformance/conformance.hpp"

namespace attn::cli {

// Throws what the plugin throws (an option it refuses, sizes it cannot take).
void build_at_small_sizes(const Registries& registries, PluginKind kind, const std::string& name, const Options& options,
                          const ParamScope& scope);

}  // namespace attn::cli
