// Catch2's main, compiled once into its own static library (it takes ~20 s to build).
// It adds one option to Catch2's command line:
//   --plugin PATH   load a plugin library; the conformance suite then checks its plugins too
//                   (give it once per library)
// and one rule: a section asked for with -c that never ran (a typo, a plugin not loaded) fails
// the run, instead of passing with nothing checked.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>
#include <set>

#include "attnlab/tensor.hpp"
#include "lab/runner/chunk_scheduler.hpp"
#include "test_plugins.hpp"

namespace attn::test {

std::vector<std::string>& plugin_paths() {
  static std::vector<std::string> paths;
  return paths;
}

namespace {

std::set<std::string>& sections_run() {
  static std::set<std::string> names;
  return names;
}

struct SectionRecorder : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void sectionStarting(Catch::SectionInfo const& info) override {
    TestEventListenerBase::sectionStarting(info);
    sections_run().insert(info.name);
  }
};

// The -c sections that never ran, each reported; 0 when every one ran.
int report_sections_not_run(const std::vector<std::string>& asked) {
  int missing = 0;
  for (const std::string& name : asked)
    if (!sections_run().count(name)) {
      std::cerr << "no section named \"" << name << "\" ran: the conformance suite's sections are \"<kind> '<name>'\", "
                << "e.g. \"scoring function 'cosine'\", \"normalizer 'softmax'\", \"RNN cell 'gru'\", "
                << "\"attention mode 'qkv'\", \"positional scheme 'rope'\" "
                << "(is the plugin's library given with --plugin?)\n";
      ++missing;
    }
  return missing;
}

}  // namespace

CATCH_REGISTER_LISTENER(SectionRecorder)

}  // namespace attn::test

int main(int argc, char* argv[]) {
  attn::keep_tensor_memory_in_heap();
  attn::lab::schedule_chunks_on_tbb();  // as the attnlab program does; BLAS on one thread
  Catch::Session session;
  using namespace Catch::clara;
  session.cli(session.cli() |
              // bound to a vector, the option may be given any number of times
              Opt(attn::test::plugin_paths(), "path")["--plugin"](
                  "load a plugin library (repeatable); the conformance suite checks its plugins too"));
  if (const int rc = session.applyCommandLine(argc, argv)) return rc;
  const int failed = session.run();
  return failed + attn::test::report_sections_not_run(session.configData().sectionsToRun);
}
