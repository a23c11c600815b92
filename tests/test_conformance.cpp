// The conformance suite (framework/lab/conformance/, the checks `attnlab check` runs) over every
// registered scoring function, RNN cell, attention mode, normalizer and positional scheme:
// built-ins, the example plugins, and every library given to this program with --plugin, each
// with its defaults and the option sets it declares. A new plugin is covered without writing a
// test. What each kind must do: framework/lab/conformance/conformance.hpp.
#include <catch2/catch.hpp>

#include "attnlab/plugin_loader.hpp"
#include "lab/builtins.hpp"
#include "lab/conformance/conformance.hpp"
#include "test_plugins.hpp"
#include "test_support.hpp"

using namespace attn;

namespace {

template <class Kind>
void every_plugin_conforms(const Kind& registry, PluginKind kind) {
  for (const std::string& name : registry.names()) {
    DYNAMIC_SECTION(kind_name(kind) << " '" << name << "'") {
      for (const ConformanceRun& run : check_plugin(test::all_plugins(), kind, name)) {
        INFO(conformance_report(run));
        CHECK(run.failures.empty());
        CHECK(run.passed.size() >= 3);
      }
    }
  }
}

}  // namespace

TEST_CASE("conformance: every scoring function", "[conformance][scoring]") {
  every_plugin_conforms(test::all_plugins().scoring, PluginKind::scoring);
}

TEST_CASE("conformance: every normalizer, held to its declared traits", "[conformance][normalizers]") {
  REQUIRE(test::all_plugins().normalizers.names().size() >= 4);
  every_plugin_conforms(test::all_plugins().normalizers, PluginKind::normalizer);
}

TEST_CASE("conformance: every positional scheme, held to its declared traits", "[conformance][positional]") {
  REQUIRE(test::all_plugins().positional.names().size() >= 6);
  every_plugin_conforms(test::all_plugins().positional, PluginKind::positional);
}

TEST_CASE("conformance: every RNN cell, through a 2-layer bidirectional RNN with padding", "[conformance][cells]") {
  every_plugin_conforms(test::all_plugins().cells, PluginKind::cell);
}

TEST_CASE("conformance: every attention mode, with and without learned projections", "[conformance][modes]") {
  every_plugin_conforms(test::all_plugins().modes, PluginKind::mode);
}

TEST_CASE("conformance for outside plugins: --plugin more than once, sections by name, typos fail", "[conformance][meta]") {
  const std::string program = std::string(attn::test::paths::build_root) + "/tests/attnlab-tests";
  const std::string bad_dir = attn::test::paths::bad_plugin_dir;
  const std::string plugins = " --plugin " + bad_dir + "/libbad-wrong_state.so --plugin " + bad_dir + "/libbad-wrong_query_dim.so";
  auto run = [&](const std::string& test_case, const std::string& section, std::string& output) {
    const std::string command = program + " '" + test_case + "' -r compact" + plugins + " -c \"" + section + "\" 2>&1";
    const attn::test::CommandOutput result = attn::test::command_output(command);
    output = result.text;
    return result.status;
  };
  const std::string cells = "[conformance][cells]", modes = "[conformance][modes]";
  std::string out;
  CHECK(run(cells, "RNN cell 'gru'", out) == 0);  // both libraries loaded, a good plugin passes
  INFO(out);
  CHECK(run(cells, "RNN cell 'wrong_state'", out) != 0);  // the first library's cell is checked...
  CHECK_THAT(out, Catch::Contains("RNN cell 'wrong_state' (plugin " + bad_dir + "/libbad-wrong_state.so) returned from step()"));
  CHECK(run(modes, "attention mode 'wrong_query_dim'", out) != 0);  // ...and the second's mode
  CHECK_THAT(out, Catch::Contains("formed queries of shape"));
  CHECK(run(cells, "RNN cell 'wrong_stat'", out) != 0);  // a typo fails instead of passing empty
  CHECK_THAT(out, Catch::Contains("no section named \"RNN cell 'wrong_stat'\" ran"));
}

TEST_CASE("attnlab check: the conformance suite from the installed program, every failure with its input", "[conformance][cli]") {
  const auto check = [](const std::string& arguments) {
    return attn::test::command_output(attn::test::attnlab_exe + " check " + arguments + " 2>&1");
  };
  const std::string examples = attn::test::paths::example_plugin_dir, bad = attn::test::paths::bad_plugin_dir;
  for (const char* example : {"cosine", "min_gru", "shared_qk", "learned_temperature", "xpos"}) {
    const auto passed = check(examples + "/libattnlab-" + example + ".so");
    INFO(passed.text);
    CHECK(passed.status == 0);
    CHECK_THAT(passed.text, Catch::Contains("'" + std::string(example) + "'") && Catch::Contains("1 of 1 checked option sets passed"));
  }
  // A mode that takes no options is checked without projections, with a note, not a failure.
  CHECK_THAT(check(examples + "/libattnlab-shared_qk.so").text, Catch::Contains("note: it takes no projection options"));
  // A failure names the plugin, the check, the input and what a correct plugin gives.
  const auto masking = check(bad + "/libbad-bad_normalizers.so --section weighs_masked");
  INFO(masking.text);
  CHECK(masking.status == 1);
  CHECK_THAT(masking.text, Catch::Contains("normalizer 'weighs_masked' (plugin " + bad + "/libbad-bad_normalizers.so), options: defaults") &&
                               Catch::Contains("FAILED masked keys get weight exactly 0\n    input:    scores [3, 4, 6], valid lengths [6, 2, 0], item 1") &&
                               Catch::Contains("    expected: 0\n"));
  CHECK(check(bad + "/libbad-wrong_shape.so").status == 1);
  CHECK(check(bad + "/libbad-wrong_state.so").status == 1);
  // Declared option sets are checked too: a masking bug behind an option that the defaults hide.
  const auto hinted = check(bad + "/libbad-conformance_hints.so");
  INFO(hinted.text);
  CHECK(hinted.status == 1);
  CHECK_THAT(hinted.text, Catch::Contains("'masks_unless_plain' (plugin " + bad + "/libbad-conformance_hints.so), options: defaults: passed"));
  CHECK_THAT(hinted.text, Catch::Contains("options: temperature=2: 2 of 8 checks failed\n  FAILED masked keys get weight exactly 0"));
  // The kinked cell is checked with the step it declares, and passes.
  CHECK_THAT(hinted.text, Catch::Contains("'relu_cell'") && Catch::Contains("note: finite-difference step 0.0003, as the plugin declares"));
  const auto relu = check(bad + "/libbad-conformance_hints.so --section relu_cell");
  CHECK(relu.status == 0);
  // --option adds an option set; a typo in it is a failure, not a default.
  CHECK_THAT(check(bad + "/libbad-conformance_hints.so --section masks_unless_plain --option temperature=3").text,
             Catch::Contains("options: temperature=3: 2 of 8 checks failed"));
  CHECK_THAT(check(examples + "/libattnlab-cosine.so --option temprature=2").text, Catch::Contains("unknown option 'temprature'"));
  // Usage errors: exit 2, with what would be right.
  CHECK_THAT(check(bad + "/libbad-conformance_hints.so --section nope").text, Catch::Contains("it registers relu_cell, masks_unless_plain"));
  CHECK(check(bad + "/libbad-conformance_hints.so --section nope").status == 2);
  CHECK(check(examples + "/libattnlab-cosine.so --option temperature").status == 2);
  CHECK(check("").status == 2);
  CHECK(check(bad + "/libbad-other_version.so").status == 2);
}

TEST_CASE("the finite-difference step a plugin declares is the step its gradients are checked with", "[conformance][hints]") {
  Registries registries;
  register_builtins(registries);
  load_plugin(std::string(attn::test::paths::bad_plugin_dir) + "/libbad-conformance_hints.so", registries);
  CHECK(registries.cells.get("relu_cell").checks.fd_step == 3e-4f);  // found by Registry::add
  CHECK(registries.normalizers.get("masks_unless_plain").checks.option_sets.size() == 1);
  const ConformanceRun declared = check_cell(registries, "relu_cell", Options{}, 3e-4f);
  INFO(conformance_report(declared));
  CHECK(declared.failures.empty());
  // A step of 0.5 reaches across the ReLU's kinks for every entry: if the step were not the one
  // used, this would pass as well.
  const ConformanceRun too_wide = check_cell(registries, "relu_cell", Options{}, 0.5f);
  INFO(conformance_report(too_wide));
  REQUIRE(too_wide.failures.size() == 1);
  CHECK(too_wide.failures[0].check == "gradients");
  CHECK_THAT(too_wide.failures[0].input, Catch::Contains("finite-difference step 0.5"));
}
