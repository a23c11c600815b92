#include "lab/builtins.hpp"
#include "test_paths.hpp"
#include "test_plugins.hpp"

#include "attnlab/plugin_loader.hpp"
#include "attnlab/registries.hpp"

namespace attn::test {

const Registries& all_plugins() {
  static const Registries registries = [] {
    Registries r;
    register_builtins(r);
    for (const char* example : {"cosine", "min_gru", "shared_qk", "learned_temperature", "xpos"})
      load_plugin(std::string(attn::test::paths::example_plugin_dir) + "/libattnlab-" + example + ".so", r);
    for (const std::string& path : plugin_paths()) load_plugin(path, r);
    return r;
  }();
  return registries;
}

}  // namespace attn::test
