#include "lab/builtins.hpp"

#include "plugins/builtins.hpp"

namespace attn {

void register_builtins(Registries& registries) {
  register_builtin_plugins(registries);
  register_core_builtins(registries);
}

}  // namespace attn
