// Plugin code that crashes, aborts, calls exit() or throws something that is no std::exception
// never ends attnlab without a word: one line names the plugin and the call, the exit code is 1
// (2 for a plugin that does not load), and the results file reads and resumes
// (lab/cli/crash_report.hpp; the plugins: tests/bad_plugins/crashes.cpp, ends_while_loading.cpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"

using attn::test::attnlab_exe;
using attn::test::command_output;
using attn::test::TempDir;

namespace {

const std::string crashes = std::string(attn::test::paths::bad_plugin_dir) + "/libbad-crashes.so";

// A two-run sweep over `key`: a built-in, then the plugin `bad`.
std::string sweep_spec(const TempDir& dir, const std::string& key, const std::string& good, const std::string& bad) {
  const std::string spec = dir / "crash.yaml";
  std::ofstream(spec) << "name: crash\nseed: 1\ndataset: {name: sequence_task, task: reverse, num_train: 64, num_valid: 8, "
                      << "num_steps: 6, max_len: 4}\nmodel: {name: seq2seq, embed: 8, hidden: 8}\ntraining: {epochs: 6, "
                      << "batch_size: 32}\nsweep:\n  " << key << ": [" << bad << ", " << good << "]\n";
  return spec;
}

attn::test::CommandOutput attnlab(const std::string& args, const std::string& env = "") {
  return command_output(env + " timeout 120 " + attnlab_exe + " " + args + " 2>&1");
}

}  // namespace

TEST_CASE("plugin code that crashes, aborts or exits: one line naming the plugin and the call, exit 1, a file that resumes",
          "[plugins][crashes]") {
  struct Case {
    std::string key, good, bad, says;
  };
  for (const Case& c : std::vector<Case>{
           {"model.scoring", "dot", "segfaults_in_score", "crashed (segmentation fault) in score()"},
           {"model.scoring", "dot", "overflows_stack", "crashed (segmentation fault) in score()"},
           {"model.normalizer", "softmax", "aborts_in_normalize", "crashed (abort) in normalize()"},
           {"model.normalizer", "softmax", "exits_in_normalize", "ended the process (exit()) in normalize()"}}) {
    TempDir dir("attnlab-crashes");
    const std::string spec = sweep_spec(dir, c.key, c.good, c.bad), out = dir / "crash.h5";
    const auto crashed = attnlab("run " + spec + " --threads 1 --plugin " + crashes + " --output " + out);
    INFO(c.bad << "\n" << crashed.text);
    CHECK(crashed.status == 1);
    CHECK_THAT(crashed.text, Catch::Contains("'" + c.bad + "' (plugin " + crashes + ") " + c.says));
    CHECK_THAT(crashed.text, Catch::Contains("The runs finished before are kept in " + out + ": `attnlab run " + spec +
                                             " --resume` with the same options completes the sweep."));
    CHECK(attnlab("inspect " + out).status == 0);  // the file reads, with what was written before
    const auto resumed = attnlab("run " + spec + " --threads 1 --plugin " + crashes + " --output " + out + " --resume",
                                 "ATTNLAB_TEST_PLUGINS_BEHAVE=1");
    INFO(resumed.text);
    CHECK(resumed.status == 0);
    CHECK_FALSE(std::filesystem::exists(out + ".lock"));  // the crashed run's, unlocked: taken over, then removed
    CHECK_THAT(attnlab("inspect " + out).text, Catch::Contains("2 of 2 planned") || Catch::Contains("2/2"));
  }
}

TEST_CASE("plugin code that throws something that is no std::exception, or ends attnlab while loading, is named",
          "[plugins][crashes]") {
  TempDir dir("attnlab-crashes");
  const auto thrown = attnlab("run " + sweep_spec(dir, "model.normalizer", "softmax", "throws_int_in_normalize") +
                              " --threads 1 --plugin " + crashes + " --output " + dir / "t.h5");
  CHECK(thrown.status == 1);  // that run failed, the other finished
  CHECK_THAT(attnlab("inspect " + dir / "t.h5").text,
             Catch::Contains("throws_int_in_normalize' (plugin " + crashes + ") threw in normalize() something that is not a std::exception"));
  const auto constructed = attnlab("validate " + sweep_spec(dir, "model.normalizer", "softmax", "throws_int_in_constructor") +
                                   " --plugin " + crashes);
  CHECK(constructed.status == 2);
  CHECK_THAT(constructed.text, Catch::Contains("throws_int_in_constructor' (plugin " + crashes +
                                               ") threw something that is not a std::exception while being constructed"));
  const std::string loading = std::string(attn::test::paths::bad_plugin_dir) + "/libbad-ends_while_loading.so";
  const auto exited = attnlab("plugins --plugin " + loading);
  CHECK(exited.status == 1);
  CHECK_THAT(exited.text, Catch::Contains("plugin '" + loading + "' ended the process (exit()) in its registration"));
  const auto threw = attnlab("plugins --plugin " + loading, "ATTNLAB_BAD_REGISTRATION=throw");
  CHECK(threw.status == 2);
  CHECK_THAT(threw.text, Catch::Contains("plugin '" + loading + "': failed while registering: it threw something that is not a std::exception"));
}

TEST_CASE("attnlab check names the plugin whose code crashes, aborts, exits or throws what is no std::exception",
          "[plugins][crashes]") {
  struct Case {
    std::string section, says;
  };
  for (const Case& c : std::vector<Case>{{"segfaults_in_score", "crashed (segmentation fault) in a call of the conformance suite"},
                                         {"aborts_in_normalize", "crashed (abort) in a call of the conformance suite"},
                                         {"exits_in_normalize", "ended the process (exit()) in a call of the conformance suite"},
                                         {"throws_int_in_normalize", "threw something that is not a std::exception during the conformance suite"}}) {
    const auto checked = attnlab("check " + crashes + " --section " + c.section);
    INFO(c.section << ": " << checked.text);
    CHECK(checked.status == 1);
    CHECK_THAT(checked.text, Catch::Contains("'" + c.section + "' (plugin " + crashes + ")") && Catch::Contains(c.says));
    CHECK_THAT(checked.text, !Catch::Contains("a bug in attnlab"));
  }
}

TEST_CASE("attnlab check: a library cut short does not load (exit 2); an --option given twice is a bad command line",
          "[plugins][crashes]") {
  TempDir dir("attnlab-check-cut");
  const std::string whole = std::string(attn::test::paths::example_plugin), cut = dir / "cut.so";
  std::filesystem::copy_file(whole, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(whole) / 2);
  const auto loaded = attnlab("check " + cut);
  INFO(loaded.text);
  CHECK(loaded.status == 2);
  CHECK_THAT(loaded.text, Catch::Contains("plugin '" + cut + "': the file is cut short: ") && Catch::Contains("where its ELF headers describe"));
  const auto twice = attnlab("check " + whole + " --option temperature=2 --option temperature=2");
  INFO(twice.text);
  CHECK(twice.status == 2);
  CHECK_THAT(twice.text, Catch::Contains("--option temperature is given twice"));
}

TEST_CASE("attnlab check: an --option the plugin does not take is a bad command line (exit 2), before any check",
          "[plugins][crashes]") {
  const std::string cosine = attn::test::paths::example_plugin;
  for (const auto& [option, says] : std::vector<std::pair<std::string, std::string>>{
           {"nope=1", "unknown option 'nope'"}, {"temperature=abc", "temperature"}, {"temperature=-5", "temperature"}}) {
    const auto checked = attnlab("check " + cosine + " --option " + option);
    INFO(option << ": " << checked.text);
    CHECK(checked.status == 2);
    CHECK_THAT(checked.text, Catch::Contains("the plugin does not take these options: ") && Catch::Contains(says));
    CHECK_THAT(checked.text, !Catch::Contains("checks failed"));
  }
  CHECK(attnlab("check " + cosine + " --option temperature=2").status == 0);
}
