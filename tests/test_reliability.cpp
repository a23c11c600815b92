// Reliability: misbehaving plugins fail only their runs; the runner survives SIGKILL (the file
// keeps every finished run and --resume completes it bit-identically) and Ctrl-C (unfinished
// runs marked interrupted); outputs that cannot be written and datasets that vanish give clear
// errors; the numerically awkward cases (length 1, maximum length, batch 1, one-token
// vocabulary) train without NaN.
#include <catch2/catch.hpp>

#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "lab/results/checkpoints.hpp"
#include "lab/results/results_format.hpp"
#include "lab/runner/run.hpp"
#include "lab/runner/runner.hpp"
#include "lab/results/hdf5_file.hpp"
#include "lab/builtins.hpp"
#include "test_support.hpp"

extern char** environ;

using namespace attn;
namespace fs = std::filesystem;

using attn::test::attnlab_exe;
using attn::test::source_root;
using attn::test::TempDir;

namespace {

std::string bad_plugin(const std::string& name) { return std::string(attn::test::paths::bad_plugin_dir) + "/libbad-" + name + ".so"; }

// Starts `attnlab args...` with its output thrown away; returns the pid.
pid_t start(const std::vector<std::string>& args) {
  std::vector<std::string> all = {attnlab_exe};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, attnlab_exe.c_str(), &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Polls `ready` (which may throw while a file is not there yet, or is being written this
// instant) until it holds or `seconds` have passed.
bool wait_until(const std::function<bool()>& ready, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    try {
      if (ready()) return true;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Waits until the results file holds at least `runs` finished runs.
bool wait_for_finished_runs(const std::string& path, std::size_t runs, double seconds) {
  return wait_until([&] {
    std::size_t finished = 0;
    for (const auto& r : ResultsReader(path).runs()) finished += r.status == RunStatus::finished;
    return finished >= runs;
  }, seconds);
}

// Sends `signal` to the process and returns its wait status.
int signal_and_wait(pid_t pid, int signal) {
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

std::map<std::string, std::string> parameters(const std::string& path) {
  const Hdf5File f(path, Hdf5File::Mode::read);
  std::map<std::string, std::string> out;
  for (const std::string& id : f.children("/runs")) {
    if (f.attr_string("/runs/" + id, "status") != "finished") continue;
    std::function<void(const std::string&)> walk = [&](const std::string& g) {
      for (const std::string& c : f.children(g)) {
        const std::string p = g + "/" + c;
        if (f.is_group(p)) {
          walk(p);
        } else {
          const Tensor t = f.read(p);
          out[p] = std::string(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(float));
        }
      }
    };
    walk("/runs/" + id + "/params");
  }
  return out;
}

const std::string sweep_spec = source_root + "/tests/specs/good/six-runs.yaml";
// Long enough runs (about 0.3 s each) that a signal lands in the middle of the sweep.
const std::string sweep_epochs = "training.epochs=40";

}  // namespace

TEST_CASE("misbehaving plugins fail only their own runs, with an error naming the plugin", "[reliability][plugins]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"throws_in_score", "threw in score(): deliberate failure in score()"},
      {"wrong_shape", "returned scores of shape [50, 1, 1] for queries [50, 1, 1] and keys [50, 49, 1]; expected [50, 1, 49]"},
      {"returns_nan", "returned NaN or infinite scores from finite queries and keys"}};
  for (const auto& [name, problem] : cases) {
    DYNAMIC_SECTION(name) {
      TempDir tmp("attnlab-reliability");
      RunnerOptions o;
      o.threads = 2;
      o.output = tmp / "r.h5";
      o.plugins = {bad_plugin(name)};
      o.overrides = {"sweep.model.scoring=[gaussian_learned, " + name + "]"};
      CHECK(run_experiment(source_root + "/tests/specs/good/plugin-throws.yaml", o) == 1);
      const Hdf5File f(tmp / "r.h5", Hdf5File::Mode::read);
      CHECK(f.attr_string("/runs/scoring-gaussian_learned", "status") == "finished");
      CHECK(f.attr_string("/runs/scoring-" + name, "status") == "failed");
      const std::string error = f.attr_string("/runs/scoring-" + name, "error");
      CHECK_THAT(error, Catch::Contains("scoring function '" + name + "' (plugin " + bad_plugin(name) + ")"));
      CHECK_THAT(error, Catch::Contains(problem));
      // Nothing to draw for the failed run: said with why, exit 2 for every kind of picture.
      for (const char* kind : {"--curves", "--attention", "--fit"}) {
        const auto drawn = attn::test::command_output(attn::test::attnlab_exe + " plot " + tmp / "r.h5" + " " + kind +
                                                      " --run scoring-" + name + " -o " + tmp / "p.svg 2>&1");
        INFO(kind << ": " << drawn.text);
        CHECK(drawn.status == 2);
        CHECK_THAT(drawn.text, Catch::Contains("(the run failed: scoring function '" + name + "'"));
      }
    }
  }
  // A library that cannot be a plugin at all is a problem of the spec: nothing runs.
  for (const std::string& path : {bad_plugin("other_version"), source_root + "/tests/bad_plugins/not_a_library.so"}) {
    RunnerOptions o;
    o.plugins = {path};
    const auto diags = check_spec(source_root + "/tests/specs/good/plugin-throws.yaml", o);
    REQUIRE(diags.size() == 1);
    const std::string stored = std::filesystem::weakly_canonical(path).string();  // as each run's config keeps it
    CHECK_THAT(diags[0].str(), Catch::StartsWith("--plugin " + path + ": plugin '" + stored + "': "));
  }
}

TEST_CASE("a plugin of any kind whose constructor throws is a spec error at its name: validate and run exit 2, write nothing",
          "[reliability][plugins]") {
  struct Case {
    std::string kind, key, plugin, builtin;
  };
  const std::string library = bad_plugin("throws_in_constructor");
  for (const Case& c : {Case{"scoring function", "model.attention.scoring", "throws_in_constructor", "dot"},
                        Case{"RNN cell", "model.cell", "throwing_cell", "gru"},
                        Case{"attention mode", "model.attention.mode", "throwing_mode", "qkv"},
                        Case{"normalizer", "model.attention.normalizer", "throwing_normalizer", "softmax"}}) {
    DYNAMIC_SECTION(c.kind) {
      TempDir tmp("attnlab-reliability");
      const std::string spec = tmp / "constructor.yaml";
      const std::string sweep_line = "  " + c.key + ": [" + c.builtin + ", ";
      std::ofstream(spec) << "name: constructor\n"
                             "dataset:\n"
                             "  name: sequence_task\n"
                             "  num_train: 32\n"
                             "model:\n"
                             "  name: seq2seq\n"
                             "  embed: 8\n"
                             "  hidden: 8\n"
                             "  attention:\n"
                             "    scoring: dot\n"
                             "sweep:\n"
                          << sweep_line << c.plugin << "]\n";
      RunnerOptions o;
      o.plugins = {library};
      o.output = tmp / "r.h5";
      const auto diags = check_spec(spec, o);
      REQUIRE(diags.size() == 1);
      CHECK(diags[0].str() == spec + ":12:" + std::to_string(sweep_line.size() + 1) + ": " + c.kind + " '" + c.plugin +
                                  "' (plugin " + library + ") threw while being constructed: deliberate failure in the constructor");
      CHECK(run_experiment(spec, o) == 2);
      CHECK_FALSE(std::filesystem::exists(tmp / "r.h5"));
      CHECK(WEXITSTATUS(std::system((attn::test::attnlab_exe + " validate " + spec + " --plugin " + library + " 2>/dev/null").c_str())) == 2);
    }
  }
}

TEST_CASE("SIGKILL in the middle of a sweep: finished runs intact, --resume completes it bit-identically", "[reliability][faults][slow]") {
  TempDir tmp("attnlab-reliability");
  RunnerOptions whole;
  whole.threads = 1;
  whole.output = tmp / "whole.h5";
  whole.overrides = {sweep_epochs};
  REQUIRE(run_experiment(sweep_spec, whole) == 0);

  const std::string killed = tmp / "killed.h5";
  const pid_t pid = start({"run", sweep_spec, "--threads", "1", "--set", sweep_epochs, "--output", killed});
  REQUIRE(wait_for_finished_runs(killed, 2, 120));
  REQUIRE(WIFSIGNALED(signal_and_wait(pid, SIGKILL)));

  // The file opens, and every run it holds as finished is complete and equal to the whole run's.
  const auto partial = parameters(killed);
  const auto reference = parameters(tmp / "whole.h5");
  REQUIRE(partial.size() >= 2 * 10);
  for (const auto& [p, bytes] : partial) CHECK(reference.at(p) == bytes);
  CHECK(ResultsReader(killed).runs().size() < 6);

  RunnerOptions resume = whole;
  resume.output = killed;
  resume.resume = true;
  // A kill between writing a run and removing its checkpoint leaves a checkpoint of a finished
  // run (made here by hand): --resume removes it, and the directory with the last one.
  const std::string finished = ResultsReader(killed).runs().front().id;
  std::filesystem::create_directories(checkpoint_directory(killed));
  std::ofstream(checkpoint_path(killed, finished)) << "stale";
  REQUIRE(run_experiment(sweep_spec, resume) == 0);
  CHECK(parameters(killed) == reference);
  CHECK_FALSE(std::filesystem::exists(checkpoint_directory(killed)));
}

TEST_CASE("SIGKILL in the middle of a run: --resume continues it from its checkpoint, bit-identically", "[reliability][faults][slow]") {
  TempDir tmp("attnlab-reliability");
  const std::vector<std::string> one_long_run = {"sweep.seed=[1]", "training.epochs=150"};
  RunnerOptions whole;
  whole.threads = 1;
  whole.output = tmp / "whole.h5";
  whole.overrides = one_long_run;
  whole.checkpoint_seconds = 0.02;
  REQUIRE(run_experiment(sweep_spec, whole) == 0);
  CHECK_FALSE(fs::exists(tmp / "whole.h5.checkpoints"));  // removed once the run is written

  const std::string killed = tmp / "killed.h5";
  const std::string checkpoint = checkpoint_path(killed, "seed-1");
  const pid_t pid = start({"run", sweep_spec, "--threads", "1", "--set", one_long_run[0], "--set", one_long_run[1],
                           "--checkpoint-every", "0.02", "--output", killed});
  const bool saved = wait_until([&] {
    return Hdf5File(checkpoint, Hdf5File::Mode::read).attr_long("/trainer", "epochs_done") >= 10;
  }, 120);
  REQUIRE(WIFSIGNALED(signal_and_wait(pid, SIGKILL)));
  REQUIRE(saved);
  REQUIRE(fs::exists(checkpoint));
  CHECK(ResultsReader(killed).runs().empty());  // the run was never written

  RunnerOptions resume = whole;
  resume.output = killed;
  resume.resume = true;
  REQUIRE(run_experiment(sweep_spec, resume) == 0);
  const Hdf5File f(killed, Hdf5File::Mode::read);
  CHECK(f.attr_long("/runs/seed-1", "resumed_from_epoch") >= 10);
  CHECK(f.attr_long("/runs/seed-1", "epochs_done") == 150);
  CHECK(f.read_doubles("/runs/seed-1/history/train_loss") ==
        Hdf5File(tmp / "whole.h5", Hdf5File::Mode::read).read_doubles("/runs/seed-1/history/train_loss"));
  CHECK(parameters(killed) == parameters(tmp / "whole.h5"));
  CHECK_FALSE(fs::exists(killed + ".checkpoints"));
}

TEST_CASE("a checkpoint made with another configuration is not used: the run fails with a clear error", "[reliability][faults]") {
  TempDir tmp("attnlab-reliability");
  RunnerOptions o;
  o.threads = 1;
  o.output = tmp / "r.h5";
  o.overrides = {"sweep.seed=[1]", "training.epochs=3"};
  o.checkpoint_seconds = 0;
  REQUIRE(run_experiment(sweep_spec, o) == 0);
  // A leftover checkpoint of the same run made with another learning rate.
  RunnerOptions other = o;
  other.overrides.push_back("training.lr=0.5");
  const RunPlan plan = read_spec(sweep_spec, other.overrides).spec->runs.at(0);
  {
    Registries registries;
    register_builtins(registries);
    const auto parts = build_run(plan, registries, fs::path(sweep_spec).parent_path().string());
    Trainer trainer(*parts->model, parts->params, registries, plan.training, plan.seed);
    save_checkpoint(trainer, RunCheckpoint{checkpoint_path(tmp / "r.h5", "seed-1"), plan.config_yaml(), 0, false});
  }
  Hdf5File(tmp / "r.h5", Hdf5File::Mode::read_write).set_attr("/runs/seed-1", "status", std::string("interrupted"));
  RunnerOptions resume = o;
  resume.resume = true;
  CHECK(run_experiment(sweep_spec, resume) == 1);
  const Hdf5File f(tmp / "r.h5", Hdf5File::Mode::read);
  CHECK(f.attr_string("/runs/seed-1", "status") == "failed");
  CHECK_THAT(f.attr_string("/runs/seed-1", "error"), Catch::Contains("this checkpoint was made with another configuration"));
}

TEST_CASE("Ctrl-C: the runner finishes writing, marks unfinished runs interrupted, exits non-zero", "[reliability][faults][slow]") {
  TempDir tmp("attnlab-reliability");
  const std::string out = tmp / "int.h5";
  const pid_t pid = start({"run", sweep_spec, "--threads", "1", "--set", sweep_epochs, "--output", out});
  REQUIRE(wait_for_finished_runs(out, 1, 120));
  const int status = signal_and_wait(pid, SIGINT);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  std::map<std::string, int> count;
  for (const auto& r : ResultsReader(out).runs()) count[to_string(r.status)]++;
  CHECK(count["finished"] >= 1);
  CHECK(count["interrupted"] >= 1);
  CHECK(count["finished"] + count["interrupted"] == 6);  // every planned run is accounted for
  const Hdf5File f(out, Hdf5File::Mode::read);
  CHECK(f.exists("/summary"));
}

TEST_CASE("an output that cannot be written is refused before any training", "[reliability][faults]") {
  TempDir tmp("attnlab-reliability");
  RunnerOptions o;
  o.output = "/proc/attnlab-results.h5";  // a directory nobody (not even root) can write to
  CHECK(run_experiment(sweep_spec, o) == 2);
  o.output = tmp / "missing/dir/r.h5";
  CHECK(run_experiment(sweep_spec, o) == 2);
  CHECK_FALSE(fs::exists(tmp / "missing"));
}

TEST_CASE("a dataset file that disappears before its run: that run fails, naming the file", "[reliability][faults]") {
  TempDir tmp("attnlab-reliability");
  const std::string corpus = tmp / "pairs.txt";
  {
    std::ofstream out(corpus);
    for (int i = 0; i < 40; ++i) out << "go .\tva !\nhi .\tsalut !\n";
  }
  const std::string spec_path = tmp / "spec.yaml";
  std::ofstream(spec_path) << "dataset:\n  name: parallel_corpus\n  path: " << corpus
                           << "\n  num_train: 64\nmodel:\n  name: seq2seq\n  hidden: 8\n  embed: 8\n  layers: 1\ntraining:\n  epochs: 1\n";
  SpecResult spec = read_spec(spec_path, {});
  REQUIRE(spec.spec);
  Registries r;
  register_builtins(r);
  REQUIRE(validate_runs(*spec.spec, r).empty());
  fs::remove(corpus);  // gone between validation and the run
  const RunRecord result = execute_run(spec.spec->runs[0], r, spec.spec->directory, {});
  CHECK(result.status == RunStatus::failed);
  CHECK_THAT(result.error, Catch::Contains(corpus));
  // A corrupt one is refused by validation, naming file and line.
  std::ofstream(corpus, std::ios::binary) << "go .\tva !\nbroken \xff line\tx\n";
  const auto diags = check_spec(spec_path, {});
  REQUIRE(diags.size() == 1);
  CHECK_THAT(diags[0].message, Catch::Contains(corpus + ":2:8: invalid UTF-8"));
}

TEST_CASE("awkward sizes train without NaN: length 1, maximum length, batch 1, a one-token vocabulary", "[reliability][numerics]") {
  TempDir tmp("attnlab-reliability");
  const std::string one_token = tmp / "one.txt";
  {
    std::ofstream out(one_token);
    for (int i = 0; i < 8; ++i) out << "a\tb\n";
  }
  struct Case { std::string name, spec; std::vector<std::string> overrides; };
  const std::string awkward = source_root + "/tests/specs/good/awkward.yaml";
  const std::vector<Case> cases = {
      {"sequences of length 1", awkward, {"dataset.min_len=1", "dataset.max_len=1"}},
      {"sequences of the maximum length (no room for <eos>)", awkward, {"dataset.min_len=6", "dataset.max_len=6"}},
      {"batch of 1", awkward, {"training.batch_size=1", "dataset.num_train=8"}},
      {"a one-token vocabulary", source_root + "/tests/specs/good/awkward-corpus.yaml", {"dataset.path=" + one_token}},
  };
  for (const Case& c : cases)
    for (const std::string model : {"seq2seq", "transformer"}) {
      DYNAMIC_SECTION(c.name << ", " << model) {
        RunnerOptions o;
        o.threads = 1;
        o.output = tmp / "awkward.h5";
        o.force = true;
        o.overrides = c.overrides;
        o.overrides.push_back("model.name=" + model);
        const int code = run_experiment(c.spec, o);
        REQUIRE(code == 0);
        for (const auto& r : ResultsReader(tmp / "awkward.h5").runs())
          for (const auto& [m, v] : r.metrics) {
            INFO(m);
            CHECK(std::isfinite(v));
          }
      }
    }
}

TEST_CASE("a results path that is a directory or a FIFO is named as such (a FIFO is never opened); a cut file says so",
          "[reliability][files]") {
  TempDir tmp("attnlab-reliability");
  const std::string fifo = tmp / "results.h5", out = tmp / "r.h5";
  REQUIRE(std::system(("mkfifo " + fifo).c_str()) == 0);
  const auto read = [](const std::string& path) {
    return attn::test::command_output("timeout 20 " + attnlab_exe + " inspect " + path + " 2>&1");
  };
  const auto piped = read(fifo);
  CHECK(piped.status == 1);  // not 124: nothing waited for a writer
  CHECK_THAT(piped.text, Catch::Contains("cannot open as an HDF5 file: this is a FIFO (named pipe)"));
  const auto dir = read(tmp.path.string());
  CHECK_THAT(dir.text, Catch::Contains("cannot open as an HDF5 file: this is a directory"));
  // A results file cut to 3000 bytes: said in words, without HDF5's "eof = ..., sblock->base_addr".
  REQUIRE(attn::test::command_output(attnlab_exe + " run " + source_root + "/tests/specs/good/nw-fit.yaml --output " + out +
                                     " > /dev/null 2>&1").status == 0);
  fs::resize_file(out, 3000);
  const auto cut = read(out);
  CHECK(cut.status == 1);
  CHECK_THAT(cut.text, Catch::Contains("the file is cut short: 3000 of its") &&
                           Catch::Contains("bytes are there (an interrupted copy, download or write?)"));
  CHECK(cut.text.find("sblock") == std::string::npos);
}
