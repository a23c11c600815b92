// Run-time plugins: the example loads and works; each broken plugin is refused with one clear
// line naming the file, and leaves the registries as they were.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "lab/builtins.hpp"
#include "lab/results/results_format.hpp"
#include "attnlab/attention/attention.hpp"
#include "attnlab/plugin.hpp"
#include "attnlab/plugin_loader.hpp"
#include "attnlab/rnn/rnn.hpp"
#include "test_support.hpp"

using namespace attn;

namespace {

std::string bad(const std::string& name) { return std::string(attn::test::paths::bad_plugin_dir) + "/libbad-" + name + ".so"; }

Registries builtins() {
  Registries r;
  register_builtins(r);
  return r;
}

}  // namespace

TEST_CASE("the example cosine plugin loads, registers and scores", "[plugins][loader]") {
  Registries r = builtins();
  load_plugin(attn::test::paths::example_plugin, r);
  REQUIRE(r.scoring.contains("cosine"));
  CHECK(r.scoring.get("cosine").origin == attn::test::paths::example_plugin);
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
    load_plugin(attn::test::paths::example_plugin, r);
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
  CHECK_THAT(refused(std::string(attn::test::paths::bad_plugin_src) + "/not_a_library.so"),
             Catch::Contains("not a shared library (no ELF header)"));
  CHECK_THAT(refused(bad("no_entry")), Catch::Contains("not an attnlab plugin") && Catch::Contains("ATTNLAB_PLUGIN"));
  CHECK_THAT(refused(bad("other_version")), Catch::Contains("API version 999") && Catch::Contains("version " + std::to_string(ATTNLAB_PLUGIN_API_VERSION)));
  CHECK_THAT(refused(bad("other_abi")), Catch::Contains("built for tensors without XSIMD") &&
                                          Catch::Contains("but this attnlab has tensors aligned to") &&
                                          Catch::Contains("pkg-config --cflags attnlab"));
  CHECK_THAT(refused(bad("duplicate_dot")), Catch::Contains("duplicate scoring function 'dot'"));
  CHECK(r.scoring.names() == before);  // not even 'dot_again' from the failed library
  load_plugin(attn::test::paths::example_plugin, r);
  // The same file again (in `plugins:` and by --plugin, say) is loaded once; a copy of it is
  // another library whose names are taken.
  const auto names = r.scoring.names();
  load_plugin(attn::test::paths::example_plugin, r);
  CHECK(r.scoring.names() == names);
  attn::test::TempDir dir("attnlab-plugin-copy");
  std::filesystem::copy_file(attn::test::paths::example_plugin, dir / "copy.so");
  CHECK_THAT(refused(dir / "copy.so"), Catch::Contains("duplicate scoring function 'cosine'"));
}

TEST_CASE("normalizers are checked where the framework meets them: errors name the plugin", "[plugins][errors]") {
  Registries r = builtins();
  load_plugin(bad("bad_normalizers"), r);
  Rng rng(1);
  ParamStore store;
  Tensor values = Tensor::from_shape({2, 3, 5});
  for (std::size_t i = 0; i < values.size(); ++i) values.data()[i] = 0.1f * static_cast<float>(i % 7);
  const Var x = constant(values);
  IntTensor lens = IntTensor::from_shape({2});
  lens(0) = 3, lens(1) = 2;  // the second example's third key is masked
  AttentionConfig config;
  config.scoring = {"dot", {}, ""};
  config.normalizer = {"wrong_weights", {}, ""};
  const Attention short_rows(r, ParamScope(store, rng, "a"), config, 5, 5, 5);
  CHECK_THROWS_WITH(short_rows({x, x, x}, lens),
                    "normalizer 'wrong_weights' (plugin " + bad("bad_normalizers") +
                        ") returned weights of shape [2, 3, 2] for scores [2, 3, 3]; expected the scores' shape [B, n_q, n_k]");
  config.normalizer = {"weighs_masked", {}, ""};
  const Attention unmasked(r, ParamScope(store, rng, "b"), config, 5, 5, 5);
  CHECK_THROWS_WITH(unmasked({x, x, x}, lens), Catch::StartsWith("normalizer 'weighs_masked' (plugin " + bad("bad_normalizers") +
                                                                 ") gave a masked key a weight"));
  // What a normalizer declares is checked too: weights never negative, rows summing to 1.
  config.normalizer = {"negative_weights", {}, ""};
  const Attention negative(r, ParamScope(store, rng, "c"), config, 5, 5, 5);
  CHECK_THROWS_WITH(negative({x, x, x}, lens), Catch::Contains("normalizer 'negative_weights'") &&
                                                   Catch::Contains("returned weights that are not what it declares: w[0, 0, ") &&
                                                   Catch::Contains("weights are never negative"));
  config.normalizer = {"sums_to_three", {}, ""};
  const Attention three(r, ParamScope(store, rng, "d"), config, 5, 5, 5);
  CHECK_THROWS_WITH(three({x, x, x}, lens), Catch::Contains("normalizer 'sums_to_three'") && Catch::Contains("row [0, 0] sums to 3, not 1"));
}

TEST_CASE("cells and modes are checked where the framework meets them: errors name the plugin", "[plugins][errors]") {
  Registries r = builtins();
  load_plugin(bad("wrong_state"), r);
  load_plugin(bad("wrong_query_dim"), r);
  Rng rng(1);
  ParamStore store;
  const Var x = constant(Tensor::from_shape({2, 3, 5}));
  {
    RnnConfig config;
    config.cell = {"wrong_state", {}, ""};
    config.input_size = 5;
    config.hidden_size = 4;
    const Rnn rnn(r, ParamScope(store, rng, "rnn"), config);
    CHECK_THROWS_WITH(rnn(x, std::nullopt),
                      "RNN cell 'wrong_state' (plugin " + bad("wrong_state") +
                          ") returned from step() a state {[2, 8]}; expected {[2, 4]} (the parts and shapes of "
                          "initial_state(), kept from step to step)");
  }
  AttentionConfig config;
  config.scoring = {"general", {}, ""};
  config.mode = {"wrong_query_dim", {}, ""};
  const Attention wrong(r, ParamScope(store, rng, "a"), config, 5, 5, 5);
  CHECK_THROWS_WITH(wrong({x, x, x}, std::nullopt),
                    "attention mode 'wrong_query_dim' (plugin " + bad("wrong_query_dim") +
                        ") formed queries of shape [2, 3, 5]; expected [2, n, 6] (query_dim() = 6, as the mode declares)");
  config.mode = {"throws_in_form", {}, ""};
  const Attention throws(r, ParamScope(store, rng, "b"), config, 5, 5, 5);
  CHECK_THROWS_WITH(throws({x, x, x}, std::nullopt), Catch::StartsWith("attention mode 'throws_in_form' (plugin ") &&
                                                         Catch::EndsWith("threw in form(): deliberate failure in form()"));
  // A mode may only tighten the mask it was given: dropping or widening the caller's lengths
  // would let padding through, and is refused at the mode's name.
  IntTensor lens = IntTensor::from_shape({2});
  lens(0) = 2, lens(1) = 3;
  for (const std::string loosens : {"drops_lens", "widens_lens"}) {
    config.mode = {loosens, {}, ""};
    const Attention loose(r, ParamScope(store, rng, loosens), config, 5, 5, 5);
    CHECK_THROWS_WITH(loose({x, x, x}, lens), "attention mode '" + loosens + "' (plugin " + bad("wrong_query_dim") +
                                                  ") widened the mask it was given in valid_lens(): query 0 of example 0 sees keys "
                                                  "[0, 3), where the caller's valid lengths allow [0, 2) (padding would be attended "
                                                  "to); a mode may only tighten the caller's lengths, so start from `lens`");
  }
  Options causal_mask;
  causal_mask.set("causal", "true");
  config.mode = {"vvv", causal_mask, ""};  // a causal mode tightens the mask: it passes
  const Attention causal(r, ParamScope(store, rng, "causal"), config, 5, 5, 5);
  CHECK_NOTHROW(causal({x, x, x}, lens));
}

TEST_CASE("plugin paths in a spec resolve against the spec's directory; the results keep them, --plugin replaces them",
          "[plugins][loader][cli]") {
  namespace fs = std::filesystem;
  const test::TempDir dir("attnlab-plugin-paths");
  fs::create_directories(dir.path / "study" / "lib");
  fs::create_directories(dir.path / "elsewhere");
  fs::copy_file(attn::test::paths::example_plugin, dir.path / "study" / "lib" / "libattnlab-cosine.so");
  std::ofstream(dir / "study/cosine.yaml") << "plugins: [lib/libattnlab-cosine.so]\n"
                                              "dataset: {name: sequence_task, task: reverse, num_train: 64, num_valid: 8, num_steps: 6, max_len: 4}\n"
                                              "model: {name: seq2seq, embed: 8, hidden: 8, layers: 1, attention: {scoring: cosine}}\n"
                                              "training: {epochs: 1, batch_size: 32, lr: 0.01}\n";
  const std::string results = dir / "cosine.h5";
  const auto in = [&](const std::string& where, const std::string& args) {
    return test::command_output("cd " + where + " && " + test::attnlab_exe + " " + args + " 2>&1");
  };
  const auto ran = in(dir / "elsewhere", "run ../study/cosine.yaml --output " + results);
  INFO(ran.text);
  REQUIRE(ran.status == 0);
  // The stored config names the plugin by its absolute path: translate works from any directory.
  const auto translated = in("/", "translate " + results + " \"1 2 3\"");
  INFO(translated.text);
  CHECK(translated.status == 0);
  // The plugin moved: the stored path names where it was; --plugin names where it is now.
  fs::rename(dir.path / "study" / "lib", dir.path / "study" / "moved");
  const auto lost = in("/", "translate " + results + " \"1 2 3\"");
  CHECK(lost.status == 2);
  CHECK_THAT(lost.text, Catch::Contains((dir.path / "study" / "lib" / "libattnlab-cosine.so").string()));
  const auto found = in(dir / "elsewhere", "translate " + results + " \"1 2 3\" --plugin ../study/moved/libattnlab-cosine.so");
  INFO(found.text);
  CHECK(found.status == 0);
}

TEST_CASE("run --plugin: each run's stored config lists the library, so the commands that rebuild the run need no --plugin",
          "[plugins][loader][cli]") {
  namespace fs = std::filesystem;
  const test::TempDir dir("attnlab-plugin-option");
  fs::create_directories(dir.path / "lib");
  fs::create_directories(dir.path / "elsewhere");
  fs::copy_file(attn::test::paths::example_plugin, dir.path / "lib" / "libattnlab-cosine.so");
  std::ofstream(dir / "cosine.yaml") << "dataset: {name: sequence_task, task: reverse, num_train: 64, num_valid: 8, num_steps: 6, max_len: 4}\n"
                                        "model: {name: seq2seq, embed: 8, hidden: 8, layers: 1, attention: {scoring: cosine}}\n"
                                        "training: {epochs: 1, batch_size: 32, lr: 0.01}\n";
  const std::string results = dir / "cosine.h5";
  const auto in = [&](const std::string& where, const std::string& args) {
    return test::command_output("cd " + where + " && " + test::attnlab_exe + " " + args + " 2>&1");
  };
  const auto ran = in(dir.path.string(), "run cosine.yaml --plugin lib/libattnlab-cosine.so --output " + results);  // a relative path
  INFO(ran.text);
  REQUIRE(ran.status == 0);
  const std::string stored = std::filesystem::weakly_canonical(dir.path / "lib" / "libattnlab-cosine.so").string();
  CHECK_THAT(ResultsReader(results).config("run"), Catch::Contains("plugins:") && Catch::Contains(stored));
  for (const std::string& command : {"translate " + results + " \"1 2 3\"", "probe " + results + " \"1 2 3\""}) {
    const auto rebuilt = in(dir / "elsewhere", command);
    INFO(command << "\n" << rebuilt.text);
    CHECK(rebuilt.status == 0);
  }
  // With `--set plugins=[...]` too, the --plugin library is listed but is no --set value.
  const std::string both = dir / "both.h5";
  REQUIRE(in(dir.path.string(), "run cosine.yaml --set 'plugins=[]' --plugin lib/libattnlab-cosine.so --output " + both).status == 0);
  CHECK_THAT(ResultsReader(both).config("run"), Catch::Contains(stored));
  CHECK(ResultsReader(both).run("run").overrides == SweepPoint{{"plugins", "[]"}});
  // Resuming needs the same libraries: the configs must agree.
  CHECK(in(dir.path.string(), "run cosine.yaml --plugin lib/libattnlab-cosine.so --output " + results + " --resume").status == 0);
  // The library moved: the stored path names where it was; --plugin names where it is now.
  fs::rename(dir.path / "lib", dir.path / "moved");
  const auto lost = in(dir / "elsewhere", "translate " + results + " \"1 2 3\"");
  CHECK(lost.status == 2);
  CHECK_THAT(lost.text, Catch::Contains(stored));
  CHECK(in(dir / "elsewhere", "translate " + results + " \"1 2 3\" --plugin ../moved/libattnlab-cosine.so").status == 0);
  // Resuming with the library where it is now: the same runs (their configs differ only in its path).
  const auto resumed = in(dir.path.string(), "run cosine.yaml --plugin moved/libattnlab-cosine.so --output " + results + " --resume");
  INFO(resumed.text);
  CHECK(resumed.status == 0);
}
