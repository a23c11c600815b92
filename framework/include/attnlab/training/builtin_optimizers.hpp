// Registration of the built-in optimizers (called by register_builtins).
#pragma once

#include "attnlab/registries.hpp"

namespace attn {

void register_optimizer_sgd(Registries& r);
void register_optimizer_adam(Registries& r);

}  // namespace attn
