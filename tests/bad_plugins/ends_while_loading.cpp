// A plugin library that ends attnlab while it registers: `exit(3)`, or with ATTNLAB_BAD_REGISTRATION=throw,
// `throw 42` (no std::exception). attnlab must name the library either way (lab/cli/crash_report.hpp).
#include <attnlab/plugin.hpp>

#include <cstdlib>
#include <cstring>

ATTNLAB_PLUGIN(registry) {
  const char* how = std::getenv("ATTNLAB_BAD_REGISTRATION");
  if (how && std::strcmp(how, "throw") == 0) throw 42;
  (void)registry;
  std::exit(3);
}
