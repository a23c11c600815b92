// `attnlab keys [--markdown]`: every key a spec takes, from the spec schema, with its type,
// default, range and meaning (--markdown: the table of docs/spec.md).
#include <cstdio>

#include "command.hpp"
#include "lab/spec/schema.hpp"

namespace attn::cli {
namespace {

int run(const std::vector<std::string>& args) {
  bool markdown = false;
  for (const std::string& a : args) {
    if (a != "--markdown") throw UsageError("unexpected argument '" + a + "'");
    markdown = true;
  }
  std::printf("%s", spec_keys_table(markdown).c_str());
  return 0;
}

}  // namespace

Command keys_command() {
  return {"keys", "list every key an experiment spec takes: type, default, range, meaning",
          "usage: attnlab keys [--markdown]\n"
          "  Lists the keys of the spec schema. Plugin options (dataset.*, model.*, ...) are listed\n"
          "  by the plugin's documentation; `attnlab plugins` names the plugins.\n"
          "  --markdown   print the table of docs/spec.md",
          run};
}

}  // namespace attn::cli
