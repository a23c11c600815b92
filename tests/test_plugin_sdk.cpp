// The plugin SDK end to end: .ci/check-plugin-sdk installs attnlab into a scratch root, builds
// the example plugin outside the source tree with the documented pkg-config command, and
// loads it with the installed `attnlab plugins --plugin`; and the guides name the API version
// those headers define.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "attnlab/plugin.hpp"
#include "test_support.hpp"

TEST_CASE("a plugin builds outside the tree against installed headers and loads", "[plugins][sdk]") {
  const std::string cmd = std::string("bash '") + ATTNLAB_SOURCE_ROOT + "/.ci/check-plugin-sdk' '" +
                          ATTNLAB_BUILD_ROOT + "' > /dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("the plugin guides state the plugin API version the headers define", "[plugins][sdk][docs]") {
  // "API version (8 today", "compiled against (8 today)", "this attnlab has version 8;", "now 8 ("
  const std::regex stated(R"((?:\((\d+) today)|(?:has version (\d+);)|(?:API_VERSION`, now (\d+)))");
  int mentions = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ATTNLAB_SOURCE_ROOT) + "/docs")) {
    if (entry.path().extension() != ".md") continue;
    const std::string text = attn::test::read_text(entry.path());
    for (std::sregex_iterator m(text.begin(), text.end(), stated), end; m != end; ++m) {
      const std::string number = (*m)[1].matched ? (*m)[1] : (*m)[2].matched ? (*m)[2] : (*m)[3];
      INFO(entry.path().filename().string() << ": \"" << m->str() << "\"");
      CHECK(std::stoi(number) == ATTNLAB_PLUGIN_API_VERSION);
      ++mentions;
    }
  }
  CHECK(mentions >= 6);  // the four plugin guides, the handshake's error example, architecture.md
}
