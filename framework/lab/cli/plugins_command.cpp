// `attnlab plugins [--plugin PATH]...`: every registered plugin by kind, with its description
// and where it comes from.
#include <cstdio>

#include "attnlab/data/text.hpp"
#include "attnlab/plugin_loader.hpp"
#include "lab/builtins.hpp"
#include "command.hpp"

namespace attn::cli {
namespace {

template <class R>
void print_kind(const R& registry) {
  std::size_t width = 0;
  for (const auto& kv : registry.entries()) width = std::max(width, kv.first.size());
  std::printf("%ss:\n", registry.kind().c_str());
  for (const auto& [name, entry] : registry.entries()) {
    // a loaded library's words reach the terminal as text, never as escapes
    std::printf("  %-*s  %s", static_cast<int>(width), without_control_characters(name).c_str(),
                without_control_characters(entry.description).c_str());
    if (entry.library) std::printf("  [%s]", without_control_characters(entry.origin).c_str());
    std::printf("\n");
  }
  std::printf("\n");
}

int list_plugins(const std::vector<std::string>& args) {
  Registries registries;
  register_builtins(registries);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--plugin" && i + 1 < args.size())
      load_plugin(args[++i], registries);
    else
      throw UsageError("unexpected argument '" + args[i] + "'");
  }
  registries.each([](const auto& r) { print_kind(r); });
  std::printf("Plugins in [brackets] were loaded from that file; the rest are built in.\n");
  return 0;
}

}  // namespace

Command plugins_command() {
  return {"plugins", "list every registered plugin: scoring, cells, modes, normalizers, models, datasets, optimizers",
          "usage: attnlab plugins [--plugin PATH]...\n"
          "  Lists every registered plugin by kind (scoring functions, RNN cells, attention modes,\n"
          "  normalizers, models, datasets, optimizers) with its description.\n"
          "  --plugin PATH   also load the plugin library at PATH (repeatable)",
          list_plugins};
}

}  // namespace attn::cli
