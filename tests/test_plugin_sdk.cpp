// The plugin SDK end to end: .ci/check-plugin-sdk installs attnlab into a scratch root, builds
// the example plugin outside the source tree with the documented pkg-config command, and
// loads it with the installed `attnlab plugins --plugin`.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

TEST_CASE("a plugin builds outside the tree against installed headers and loads", "[plugins][sdk]") {
  const std::string cmd = std::string("bash '") + ATTNLAB_SOURCE_ROOT + "/.ci/check-plugin-sdk' '" +
                          ATTNLAB_BUILD_ROOT + "' > /dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
}
