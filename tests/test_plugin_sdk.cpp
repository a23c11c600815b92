// The plugin SDK end to end: .ci/check-plugin-sdk installs attnlab into a scratch root, builds
// the example plugin outside the source tree with the documented pkg-config command, and
// loads it with the installed `attnlab plugins --plugin`; and the guides name the API version
// those headers define.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "attnlab/plugin.hpp"
#include "test_support.hpp"

TEST_CASE("a plugin builds outside the tree against installed headers and loads", "[plugins][sdk]") {
  const std::string cmd = std::string("bash '") + attn::test::paths::source_root + "/.ci/check-plugin-sdk' '" +
                          attn::test::paths::build_root + "' > /dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("the plugin guides state the plugin API version the headers define", "[plugins][sdk][docs]") {
  // "API version (8 today", "compiled against (8 today)", "this attnlab has version 8;", "now 8 ("
  const std::regex stated(R"((?:\((\d+) today)|(?:has version (\d+);)|(?:API_VERSION`, now (\d+)))");
  int mentions = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(attn::test::paths::source_root) + "/docs")) {
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

TEST_CASE("a plugin written with API 1's names compiles, each old name warning with its successor", "[plugins][sdk]") {
  const attn::test::TempDir dir("attnlab-old-names");
  std::ofstream(dir / "old.cpp") << R"(#include <attnlab/plugin.hpp>
#include <attnlab/autodiff/ops.hpp>
#include <attnlab/errors.hpp>
#include <attnlab/plugins/attention_mode.hpp>
attn::Var twice(const attn::Var& x) { return attn::record(x.value() * 2.0f, {x}, [](attn::Node&) {}); }
attn::QKV formed;
void refuse() { throw attn::OptionError("spec.yaml:1:1", "bad"); }
attn::Var keep(const attn::Var& a, const attn::Var& c) { return attn::select_rows({true}, a, c); }
)";
  const auto compiled = attn::test::command_output("g++ -std=c++17 -DXTENSOR_USE_XSIMD -fsyntax-only -I" + attn::test::source_root +
                                                   "/framework/core/include " + (dir / "old.cpp") + " 2>&1");
  INFO(compiled.text);
  CHECK(compiled.status == 0);
  for (const std::string warning : {"record() is graph_node() since plugin API 2", "QKV is FormedQkv since plugin API 2",
                                    "OptionError is SpecError since plugin API 2", "select_rows() is rows_where() since plugin API 3"})
    CHECK_THAT(compiled.text, Catch::Contains("is deprecated: " + warning + " [-Wdeprecated-declarations]"));
}

TEST_CASE("attnlab new-plugin writes, for each kind, a plugin that compiles, loads, conforms and a spec that validates", "[plugins][sdk][cli]") {
  const attn::test::TempDir dir("attnlab-new-plugin");
  const auto in_dir = [&](const std::string& command) { return attn::test::command_output("cd " + dir.path.string() + " && " + command + " 2>&1"); };
  const std::string attnlab = attn::test::attnlab_exe;
  for (const std::string kind : {"scoring", "cell", "mode", "normalizer", "positional"}) {
    const std::string name = "my_" + kind, so = "build/lib" + name + ".so";
    const auto written = in_dir(attnlab + " new-plugin " + kind + " " + name);
    INFO(written.text);
    REQUIRE(written.status == 0);
    CHECK_THAT(written.text, Catch::Contains("attnlab plugins --plugin " + so));
    const auto built = in_dir("cd " + name + " && mkdir -p build && g++ -std=c++17 -O0 -shared -fPIC " + name + ".cpp -o " + so +
                              " $(PKG_CONFIG_PATH=" + attn::test::paths::build_root + "/meson-uninstalled pkg-config --cflags --libs attnlab)");
    INFO(built.text);
    REQUIRE(built.status == 0);
    CHECK_THAT(in_dir("cd " + name + " && " + attnlab + " plugins --plugin " + so).text, Catch::Contains("  " + name + " "));
    const auto validated = in_dir("cd " + name + " && " + attnlab + " validate " + name + ".yaml");
    INFO(validated.text);
    CHECK(validated.status == 0);
    CHECK_THAT(written.text, Catch::Contains("attnlab check " + so));  // the next command it names: the skeleton conforms
    const auto checked = in_dir("cd " + name + " && " + attnlab + " check " + so);
    INFO(checked.text);
    CHECK(checked.status == 0);
  }
  // Refusals: one line, exit 2, nothing written.
  CHECK(in_dir(attnlab + " new-plugin scoring my_scoring").status == 2);  // the directory exists
  CHECK(in_dir(attnlab + " new-plugin scoring My-Score").status == 2);
  CHECK(in_dir(attnlab + " new-plugin kernel my_kernel").status == 2);
  CHECK(!std::filesystem::exists(dir.path / "My-Score"));
  CHECK(!std::filesystem::exists(dir.path / "my_kernel"));
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"scoring dot", "'dot' is the name of a built-in scoring plugin: a library registering it again would not load"},
           {"positional rope", "'rope' is the name of a built-in positional plugin"},
           {"scoring $(printf 'x%.0s' $(seq 300))", "is 300 bytes long: a plugin's name has at most 64"},
           {"scoring $(printf 'a\033b')", "'a?b' cannot name a plugin"},
           {"scoring ok_name --dir ''", "--dir is empty"},
           {"scoring ok_name --dir /proc/attnlab_plugin", "could not make the directory '/proc/attnlab_plugin' ("}}) {
    const auto refused = in_dir(attnlab + " new-plugin " + args);
    INFO(args << ": " << refused.text);
    CHECK(refused.status == 2);
    CHECK_THAT(refused.text, Catch::Contains(says));
    CHECK(refused.text.find('\033') == std::string::npos);
  }
  CHECK(!std::filesystem::exists(dir.path / "dot"));
  CHECK(!std::filesystem::exists(dir.path / "ok_name"));
}

TEST_CASE("attnlab keys lists the options each attention plugin reads, loaded ones too", "[plugins][sdk][cli]") {
  const auto keys = attn::test::command_output(attn::test::attnlab_exe + " keys --plugin " + attn::test::paths::example_plugin_dir +
                                               "/libattnlab-xpos.so 2>&1");
  INFO(keys.text);
  REQUIRE(keys.status == 0);
  CHECK_THAT(keys.text, Catch::Contains("training.optimizer  (string, default adam"));  // the schema first
  CHECK_THAT(keys.text, Catch::Contains("  additive            hidden (a non-negative integer, default 8, [1, 65536])"));
  CHECK_THAT(keys.text, Catch::Contains("  sigmoid             bias (optional, default none)"));  // read only when given
  CHECK_THAT(keys.text, Catch::Contains("  dot                 no options"));
  CHECK_THAT(keys.text, Catch::Contains("  xpos                base (a number, default 10000, [2, 1e+12]); gamma"));
  CHECK(attn::test::command_output(attn::test::attnlab_exe + " keys --markdown").text.find("scoring functions\n") == std::string::npos);
}

TEST_CASE("attnlab keys SPEC lists the options the spec's dataset and model read, with the spec's values", "[plugins][sdk][cli]") {
  const std::string spec = attn::test::source_root + "/experiments/transformer-reverse.yaml";
  const auto keys = attn::test::command_output(attn::test::attnlab_exe + " keys " + spec + " --set model.layers=3 2>&1");
  INFO(keys.text);
  REQUIRE(keys.status == 0);
  CHECK_THAT(keys.text, Catch::Contains("dataset 'sequence_task' (as run heads-1 builds it) reads:"));
  CHECK_THAT(keys.text, Catch::Contains("model 'transformer' (as run heads-1 builds it) reads:"));
  CHECK_THAT(keys.text, Catch::Contains("  model.layers      (a non-negative integer, default 2"));
  CHECK_THAT(keys.text, Catch::Contains("spec: 3"));  // the value --set gave
  CHECK(keys.text.find("training.optimizer") == std::string::npos);  // the spec's options only
  for (const std::string& wrong : std::vector<std::string>{" keys " + spec + " --markdown", " keys " + spec + " " + spec, " keys --set model.layers=3"}) {
    const auto refused = attn::test::command_output(attn::test::attnlab_exe + wrong + " 2>&1");
    INFO(wrong << ": " << refused.text);
    CHECK(refused.status == 2);
  }
}
