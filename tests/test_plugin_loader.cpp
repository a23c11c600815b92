// Run-time plugins: the example loads and works; each broken plugin is refused with one clear
// line naming the file, and leaves the registries as they were.
#include <catch2/catch.hpp>

#include "lab/builtins.hpp"
#include "attnlab/attention/attention.hpp"
#include "attnlab/plugin.hpp"
#include "attnlab/plugin_loader.hpp"

using namespace attn;

namespace {

std::string bad(const std::string& name) { return std::string(ATTNLAB_BAD_PLUGIN_DIR) + "/libbad-" + name + ".so"; }

Registries builtins() {
  Registries r;
  register_builtins(r);
  return r;
}

}  // namespace

TEST_CASE("the example cosine plugin loads, registers and scores", "[plugins][loader]") {
  Registries r = builtins();
  load_plugin(ATTNLAB_EXAMPLE_PLUGIN, r);
  REQUIRE(r.scoring.contains("cosine"));
  CHECK(r.scoring.get("cosine").origin == ATTNLAB_EXAMPLE_PLUGIN);
  ParamStore store;
  Rng rng(1);
  Options opt;
  opt.set("temperature", "0.5");
  auto cosine = r.scoring.create("cosine", ScoringArgs{ParamScope(store, rng), opt, 2, 2});
  const Tensor q = {{{3.0f, 4.0f}}}, k = {{{4.0f, 3.0f}, {-3.0f, -4.0f}}};
  const Tensor s = cosine->score(constant(q), constant(k)).value();
  CHECK(s(0, 0, 0) == Approx(24.0f / 25.0f / 0.5f));
  CHECK(s(0, 0, 1) == Approx(-2.0f));
}

TEST_CASE("objects made by a plugin keep its library loaded after the registries are gone", "[plugins][loader]") {
  std::shared_ptr<ScoringFunction> survivor;
  {
    Registries r = builtins();
    load_plugin(ATTNLAB_EXAMPLE_PLUGIN, r);
    ParamStore store;
    Rng rng(1);
    const Options none;
    survivor = r.scoring.create("cosine", ScoringArgs{ParamScope(store, rng), none, 2, 2});
  }
  const Tensor q = {{{1.0f, 0.0f}}};
  CHECK(survivor->score(constant(q), constant(q)).value()(0, 0, 0) == Approx(1.0f));
  survivor.reset();  // the library is unloaded here; the process must not crash at exit
}

TEST_CASE("broken plugins are refused with one clear line, registries unchanged", "[plugins][loader][errors]") {
  Registries r = builtins();
  const auto before = r.scoring.names();
  auto refused = [&](const std::string& path) {
    try {
      load_plugin(path, r);
    } catch (const PluginError& e) {
      const std::string msg = e.what();
      CHECK(msg.find('\n') == std::string::npos);
      CHECK(msg.find("Bad file descriptor") == std::string::npos);
      CHECK(msg.rfind("plugin '" + path + "': ", 0) == 0);
      return msg;
    }
    FAIL("plugin " << path << " was accepted");
    return std::string();
  };
  CHECK_THAT(refused("/no/such/plugin.so"), Catch::EndsWith(": no such file"));
  CHECK_THAT(refused(std::string(ATTNLAB_BAD_PLUGIN_SRC) + "/not_a_library.so"),
             Catch::Contains("not a shared library (no ELF header)"));
  CHECK_THAT(refused(bad("no_entry")), Catch::Contains("not an attnlab plugin") && Catch::Contains("ATTNLAB_PLUGIN"));
  CHECK_THAT(refused(bad("other_version")), Catch::Contains("API version 999") && Catch::Contains("version " + std::to_string(ATTNLAB_PLUGIN_API_VERSION)));
  CHECK_THAT(refused(bad("duplicate_dot")), Catch::Contains("duplicate scoring function 'dot'"));
  CHECK(r.scoring.names() == before);  // not even 'dot_again' from the failed library
  load_plugin(ATTNLAB_EXAMPLE_PLUGIN, r);
  CHECK_THAT(refused(ATTNLAB_EXAMPLE_PLUGIN), Catch::Contains("duplicate scoring function 'cosine'"));
}
