// Loads plugin libraries the user names (spec key `plugins:` or `--plugin PATH`).
// Only what the user named is loaded: plugins run with the user's rights.
#pragma once

#include <stdexcept>
#include <string>

#include "attnlab/registries.hpp"

namespace attn {

// Loads the shared library at `path`, checks its API version and registers its plugins
// into `registries`, all or nothing. Every failure is one clear line naming the file:
// missing file, not a shared library, no attnlab entry point, another API version,
// a duplicate name, or an exception thrown while registering. A file whose plugins are
// already registered (the same file by any path) is not loaded again.
void load_plugin(const std::string& path, Registries& registries);

}  // namespace attn
