// Catch2's main, compiled once into its own static library (it takes ~20 s to build).
// It adds one option to Catch2's command line:
//   --plugin PATH   load a plugin library; the conformance suite then checks its plugins too.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "attnlab/tensor.hpp"
#include "test_plugins.hpp"

namespace attn::test {

std::vector<std::string>& plugin_paths() {
  static std::vector<std::string> paths;
  return paths;
}

}  // namespace attn::test

int main(int argc, char* argv[]) {
  attn::keep_tensor_memory_in_heap();
  attn::set_blas_threads(1);  // tests are single-threaded; BLAS threads only add overhead here
  Catch::Session session;
  using namespace Catch::clara;
  session.cli(session.cli() |
              Opt([](const std::string& path) {
                attn::test::plugin_paths().push_back(path);
                return ParserResult::ok(ParseResultType::Matched);
              }, "path")["--plugin"]("load a plugin library; the conformance suite checks its plugins too"));
  if (const int rc = session.applyCommandLine(argc, argv)) return rc;
  return session.run();
}
