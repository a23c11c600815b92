// Every built-in of attnlab in one call: the core's models, datasets and optimizers
// (register_core_builtins) and the built-in plugins of plugins/ (register_builtin_plugins).
#pragma once

#include "attnlab/registries.hpp"

namespace attn {

void register_builtins(Registries& registries);

}  // namespace attn
