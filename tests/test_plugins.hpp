// The plugin libraries handed to the test program with --plugin, and registries holding the
// built-ins plus those plugins (what the conformance suite iterates over).
#pragma once

#include <string>
#include <vector>

namespace attn {
struct Registries;
}

namespace attn::test {

std::vector<std::string>& plugin_paths();
// Built-ins, the example plugins this build made, and every --plugin library.
const Registries& all_plugins();

}  // namespace attn::test
