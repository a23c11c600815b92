// The experiment runner: the corpus of bad specs (each with the errors it must produce),
// nothing written on a bad spec, determinism across thread counts, --resume, failure
// isolation, the results file read back with h5py and h5dump, and the comparison table.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <sstream>

#include "lab/results/results_format.hpp"
#include "lab/runner/chunk_scheduler.hpp"
#include "lab/runner/runner.hpp"
#include "lab/spec/schema.hpp"
#include "lab/results/hdf5_file.hpp"
#include "test_support.hpp"

using namespace attn;
namespace fs = std::filesystem;

using attn::test::attnlab_exe;
using attn::test::source_root;
using attn::test::TempDir;

namespace {


std::string spec(const std::string& name) { return source_root + "/tests/specs/" + name; }

int shell(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

RunnerOptions quiet_options(int threads, const std::string& output) {
  RunnerOptions o;
  o.threads = threads;
  o.output = output;
  return o;
}

// Every parameter and metric of every run, for bit-for-bit comparisons.
std::map<std::string, std::string> fingerprint(const std::string& path) {
  const Hdf5File f(path, Hdf5File::Mode::read);
  std::map<std::string, std::string> out;
  std::function<void(const std::string&)> walk = [&](const std::string& g) {
    for (const std::string& c : f.children(g)) {
      const std::string p = g + "/" + c;
      if (f.is_group(p)) {
        walk(p);
      } else if (p.find("/params/") != std::string::npos) {
        const Tensor t = f.read(p);
        out[p] = std::string(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(float));
      } else if (c != "seconds") {  // every dataset but the timings: history, maps, metrics, labels
        try {
          const std::vector<double> column = f.read_doubles(p);
          out[p] = std::string(reinterpret_cast<const char*>(column.data()), column.size() * sizeof(double));
        } catch (const FileError&) {  // labels and vocabularies are strings
          for (const std::string& label : f.read_strings(p)) out[p] += label + "\n";
        }
      }
    }
  };
  walk("/runs");
  for (const std::string& id : f.children("/runs"))
    for (const std::string& a : f.attr_names("/runs/" + id))
      if (a.rfind("metric.", 0) == 0) out[id + "@" + a] = std::to_string(f.attr_double("/runs/" + id, a));
  return out;
}

}  // namespace

TEST_CASE("every bad spec of the corpus gives exactly the errors written in it", "[runner][specs]") {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(source_root + "/tests/specs/bad")) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    const std::string path = entry.path().string();
    std::vector<std::string> expected;
    std::ifstream in(path);
    std::string line;
    for (std::string text; std::getline(in, text, '\r');)  // lines end in LF, CRLF or (cr_line_endings.yaml) CR
      for (std::istringstream lines(text); std::getline(lines, line);)
        if (line.rfind("# expect: ", 0) == 0) {  // "<source>" stands for the repository's root
          std::string message = line.substr(10);
          if (const std::size_t at = message.find("<source>"); at != std::string::npos) message.replace(at, 8, source_root);
          expected.push_back(path + message);
        }
    std::vector<std::string> got;
    for (const Diagnostic& d : check_spec(path, {})) got.push_back(d.str());
    INFO(path);
    REQUIRE_FALSE(expected.empty());
    CHECK(got == expected);
  }
  CHECK(count >= 30);
}

TEST_CASE("a bad spec runs nothing, writes nothing and exits with 2", "[runner][specs]") {
  TempDir tmp("attnlab-runner");
  const std::string out = tmp / "out.h5";
  CHECK(shell(attnlab_exe + " run " + spec("bad/many_problems.yaml") + " --output " + out + " 2>/dev/null") == 2);
  CHECK_FALSE(fs::exists(out));
  CHECK(shell(attnlab_exe + " validate " + spec("bad/unknown_scoring.yaml") + " 2>/dev/null") == 2);
  CHECK(shell(attnlab_exe + " validate " + spec("good/tiny-sweep.yaml") + " > /dev/null") == 0);
  // an existing output is refused without --force or --resume
  std::ofstream(out) << "precious";
  CHECK(shell(attnlab_exe + " run " + spec("good/tiny-sweep.yaml") + " --output " + out + " 2>/dev/null") == 2);
  std::ifstream back(out);
  std::string content;
  back >> content;
  CHECK(content == "precious");
  // a missing output directory is refused before any training
  CHECK(shell(attnlab_exe + " run " + spec("good/tiny-sweep.yaml") + " --output " + tmp / "no/such/dir.h5" + " 2>/dev/null") == 2);
}

TEST_CASE("--set overrides keys and is validated like the file", "[runner][specs]") {
  RunnerOptions o;
  o.overrides = {"training.epochs=7", "sweep.model.attention.scoring=[general]"};
  CHECK(check_spec(spec("good/tiny-sweep.yaml"), o).empty());
  // A swept key set to one value would drop its axis unseen: refused, saying how to mean it.
  o.overrides = {"seed=5"};
  auto swept = check_spec(spec("good/tiny-sweep.yaml"), o);
  REQUIRE(swept.size() == 1);
  CHECK(swept[0].str() == "--set seed=5: 'seed' is swept (sweep.seed in the spec); --set seed=... would drop that axis unseen: "
                          "to run only this value, use --set sweep.seed=[5]");
  // An empty sweep list through --set is refused as in the file (it crashed the planner).
  o.overrides = {"sweep.seed=[]"};
  swept = check_spec(spec("good/tiny-sweep.yaml"), o);
  REQUIRE(swept.size() == 1);
  CHECK(swept[0].str() == "--set sweep.seed=[]: sweep values of 'seed' must be a non-empty list, e.g. [dot, additive]");
  // A quoted value reads as in the file ("7" is 7; it was refused as the text '"7"'); an escape
  // in it that makes a control character is refused, in a list too.
  o.overrides = {"training.epochs=\"7\"", "name='quoted'"};
  CHECK(check_spec(spec("good/tiny-sweep.yaml"), o).empty());
  CHECK(read_spec(spec("good/tiny-sweep.yaml"), o.overrides).spec->runs.at(0).training.epochs == 7);
  for (const std::string bad : {"name=\"a\\x1bb\"", "sweep.seed=[1, \"2\\n\"]"}) {
    o.overrides = {bad};
    swept = check_spec(spec("good/tiny-sweep.yaml"), o);
    REQUIRE(swept.size() == 1);
    CHECK_THAT(swept[0].str(), Catch::StartsWith("--set " + bad + ": a control character (U+00"));
  }
  // A list left open, or with text after its ']' (which yaml-cpp ignored: [1, 2]x ran seeds 1 and 2).
  for (const std::string bad : {"sweep.seed=[1, 2", "sweep.seed=[1, 2]x", "sweep.seed=[1] [2]", "sweep.seed=[[1, 2]]", "record.attention=[0"}) {
    o.overrides = {bad};
    swept = check_spec(spec("good/tiny-sweep.yaml"), o);
    REQUIRE(swept.size() == 1);
    CHECK(swept[0].str() == "--set " + bad + ": '" + bad.substr(bad.find('=') + 1) +
                                "' starts a list but is not a list of values (a '[' without its ']', text after it, or a list "
                                "inside it?); write a list as [a, b], e.g. --set sweep.seed=[1, 2]");
  }
  o.overrides = {"sweep.seed=[1, '2'] # a comment"};
  CHECK(check_spec(spec("good/tiny-sweep.yaml"), o).empty());
  o.overrides = {"training.epocs=7"};
  const auto diags = check_spec(spec("good/tiny-sweep.yaml"), o);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].str() == "--set training.epocs=7: unknown key 'training.epocs'; did you mean 'training.epochs'?");
}

TEST_CASE("--set on a key replaces its whole value, a map of sub-keys included", "[runner][specs]") {
  // experiments/seq2seq-bottleneck.yaml has model.attention.mode and .scoring; the documented
  // way to compare without attention is --set model.attention=none.
  const std::string bottleneck = std::string(attn::test::paths::source_root) + "/experiments/seq2seq-bottleneck.yaml";
  RunnerOptions o;
  o.overrides = {"model.attention=none"};
  CHECK(check_spec(bottleneck, o).empty());
  const SpecResult r = read_spec(bottleneck, o.overrides);
  REQUIRE(r.spec);
  for (const RunPlan& plan : r.spec->runs) {
    CHECK(plan.model_options.text("attention") == "none");
    CHECK_THAT(plan.config_yaml(), !Catch::Contains("scoring"));
  }
}

TEST_CASE("docs/spec.md holds the spec schema's table as `attnlab keys --markdown` prints it", "[runner][specs][docs]") {
  std::ifstream in(source_root + "/docs/spec.md");
  std::stringstream doc;
  doc << in.rdbuf();
  REQUIRE_FALSE(doc.str().empty());
  const std::string table = spec_keys_table(true);
  INFO("paste this table into docs/spec.md:\n" << table);
  CHECK(doc.str().find(table) != std::string::npos);
  for (const SpecKey& row : spec_keys()) CHECK_THAT(table, Catch::Contains("| `" + row.key + "` |"));
}

TEST_CASE("the schema's defaults are the plan's: a spec without optional keys plans the documented defaults", "[runner][specs]") {
  const SpecResult r = read_spec_text("dataset: {name: regression1d}\nmodel: {name: nadaraya_watson}\n", "minimal.yaml", {});
  REQUIRE(r.spec);
  const RunPlan& plan = r.spec->runs.at(0);
  for (const SpecKey& row : spec_keys()) {
    if (!row.show) continue;
    INFO(row.key);
    if (row.default_doc.empty()) CHECK(row.default_text() == "`" + row.show(plan) + "`");
  }
  CHECK(find_spec_key("training.lr")->show(plan) == "0.001");  // the shortest text, not 0.00100000005
  // A written value reaches the plan through the same binding.
  const SpecResult set = read_spec_text("dataset: {name: regression1d}\nmodel: {name: nadaraya_watson}\n", "minimal.yaml",
                                        {"training.lr=0.25", "evaluation.max_len=7", "record.attention=[4]"});
  REQUIRE(set.spec);
  CHECK(set.spec->runs[0].training.lr == 0.25f);
  CHECK(set.spec->runs[0].max_len == std::optional<std::size_t>(7));
  CHECK(set.spec->runs[0].training.attention.examples == std::vector<std::size_t>{4});
}

TEST_CASE("the shipped experiments are valid", "[runner][specs]") {
  for (const auto& entry : fs::directory_iterator(source_root + "/experiments")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    CHECK(check_spec(entry.path().string(), {}).empty());
  }
}

TEST_CASE("every shipped experiment's header says what it teaches, what to look at and how long it takes", "[runner][specs][docs]") {
  for (const auto& entry : fs::directory_iterator(source_root + "/experiments")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    std::ifstream in(entry.path());
    std::string header;
    for (std::string line; std::getline(in, line) && line.rfind("#", 0) == 0;) header += line + "\n";
    for (const char* label : {"\n# Teaches: ", "\n# Look at: ", "\n# Takes: "}) CHECK_THAT("\n" + header, Catch::Contains(label));
  }
}

TEST_CASE("same spec and seed: bit-identical weights and metrics with 1 and 2 threads; --resume completes a sweep identically", "[runner][determinism][slow]") {
  // The second spec adds scheduled sampling, a warmed-up cosine schedule, label smoothing and AdamW.
  const std::string name = GENERATE(as<std::string>{}, "good/tiny-sweep.yaml", "good/tiny-sweep-sampled.yaml");
  INFO(name);
  TempDir tmp("attnlab-runner");
  const std::string one = tmp / "one.h5", two = tmp / "two.h5";
  REQUIRE(run_experiment(spec(name), quiet_options(1, one)) == 0);
  REQUIRE(run_experiment(spec(name), quiet_options(2, two)) == 0);
  const auto a = fingerprint(one), b = fingerprint(two);
  CHECK(a.size() > 4 * 10);
  CHECK(a == b);

  // Knock two runs out of a copy (as if the sweep had been interrupted), then resume it.
  const std::string partial = tmp / "partial.h5";
  fs::copy_file(one, partial);
  {
    Hdf5File f(partial, Hdf5File::Mode::read_write);
    f.remove("/runs/scoring-dot_seed-2");
    f.set_attr("/runs/scoring-additive_seed-1", "status", std::string("interrupted"));
  }
  RunnerOptions resume = quiet_options(2, partial);
  resume.resume = true;
  REQUIRE(run_experiment(spec(name), resume) == 0);
  CHECK(fingerprint(partial) == a);
  CHECK(ResultsReader(partial).run_ids().size() == 4);
}

TEST_CASE("one run on 1, 2 and 3 threads: a Transformer, a language model and a ViT train to the same bits", "[runner][determinism][threads][slow]") {
  const std::string name = GENERATE(as<std::string>{}, "good/threads-one-run.yaml", "good/threads-language-model.yaml", "good/threads-vit.yaml");
  INFO(name);
  TempDir tmp("attnlab-threads");
  // The lab's scheduler, watched: which threads ran the run's chunks.
  std::mutex m;
  std::set<std::thread::id> workers;
  set_chunk_scheduler([&](std::size_t chunks, const std::function<void(std::size_t)>& chunk) {
    lab::tbb_chunk_scheduler()(chunks, [&](std::size_t i) {
      {
        const std::lock_guard<std::mutex> lock(m);
        workers.insert(std::this_thread::get_id());
      }
      chunk(i);
    });
  });
  struct Restore {
    ~Restore() { set_chunk_scheduler(lab::tbb_chunk_scheduler()); }
  } restore;
  std::map<int, std::map<std::string, std::string>> prints;
  for (const int threads : {1, 2, 3}) {
    workers.clear();
    const std::string out = tmp / (std::to_string(threads) + ".h5");
    REQUIRE(run_experiment(spec(name), quiet_options(threads, out)) == 0);
    prints[threads] = fingerprint(out);
    INFO(threads << " threads");
    if (threads == 1) CHECK(workers.size() == 1);
    else CHECK(workers.size() >= 2);  // the one run's work did go to more than one thread
  }
  CHECK(prints[1].size() > 10);
  CHECK(prints[1] == prints[2]);
  CHECK(prints[1] == prints[3]);
}

TEST_CASE("one run diverging or throwing does not stop the others; the exit code says so", "[runner][failures]") {
  TempDir tmp("attnlab-runner");
  const std::string out = tmp / "lr.h5";
  CHECK(run_experiment(spec("good/lr-sweep-diverges.yaml"), quiet_options(2, out)) == 1);
  std::map<std::string, std::string> status;
  for (const auto& r : ResultsReader(out).runs()) status[r.id] = to_string(r.status);
  CHECK(status["lr-0.5"] == "finished");
  CHECK(status["lr-1.0e_30"] == "diverged");

  const std::string thrown = tmp / "throws.h5";
  RunnerOptions o = quiet_options(2, thrown);
  o.plugins = {std::string(attn::test::paths::bad_plugin_dir) + "/libbad-throws_in_score.so"};
  CHECK(run_experiment(spec("good/plugin-throws.yaml"), o) == 1);
  const Hdf5File f(thrown, Hdf5File::Mode::read);
  CHECK(f.attr_string("/runs/scoring-gaussian_learned", "status") == "finished");
  CHECK(f.attr_string("/runs/scoring-throws_in_score", "status") == "failed");
  CHECK_THAT(f.attr_string("/runs/scoring-throws_in_score", "error"), Catch::Contains("deliberate failure in score()"));
}

TEST_CASE("the results file reads back with h5py and h5dump; compare prints the table", "[runner][hdf5][slow]") {
  TempDir tmp("attnlab-runner");
  const std::string out = tmp / "r.h5";
  REQUIRE(run_experiment(spec("good/tiny-sweep.yaml"), quiet_options(2, out)) == 0);
  CHECK(shell("/usr/bin/python3 " + source_root + "/tests/read_results.py " + out + " > /dev/null") == 0);
  CHECK(shell("h5dump -H " + out + " > /dev/null") == 0);
  CHECK(shell(attnlab_exe + " compare " + out + " --format csv | grep -q '^\"scoring=dot\",2,2,'") == 0);
  CHECK(shell(attnlab_exe + " compare " + out + " --format markdown | grep -q '^| scoring=additive'") == 0);
  CHECK(shell(attnlab_exe + " compare " + spec("good/tiny-sweep.yaml") + " 2>/dev/null") == 1);  // not HDF5
  CHECK(shell(attnlab_exe + " translate " + out + " --run scoring-additive_seed-1 '1 2 3' | grep -q '^1 2 3 => '") == 0);
}

TEST_CASE("a spec path that is not a file is named as what it is, a FIFO never blocks, and long error lists are cut", "[runner][specs]") {
  TempDir tmp("attnlab-runner");
  const std::string fifo = tmp / "spec.yaml";
  REQUIRE(shell("mkfifo " + fifo) == 0);
  const auto piped = attn::test::command_output("timeout 10 " + attnlab_exe + " validate " + fifo + " 2>&1");
  CHECK(piped.status == 2);  // not 124: it did not wait for a writer
  CHECK_THAT(piped.text, Catch::Contains("cannot read the spec: this is a FIFO (named pipe), not a spec file"));
  const auto dir = attn::test::command_output(attnlab_exe + " validate " + tmp.path.string() + " 2>&1");
  CHECK(dir.status == 2);
  CHECK_THAT(dir.text, Catch::Contains("cannot read the spec: this is a directory, not a spec file"));
  const auto empty = attn::test::command_output(attnlab_exe + " run " + spec("good/tiny-sweep.yaml") + " --output '' 2>&1");
  CHECK(empty.status == 2);
  CHECK_THAT(empty.text, Catch::Contains("--output is empty"));
  // 80 unknown keys: 50 shown, then how many more.
  std::ofstream many(tmp / "many.yaml");
  many << "dataset: {name: regression1d}\nmodel: {name: nadaraya_watson}\n";
  for (int i = 0; i < 80; ++i) many << "unknown_" << i << ": 1\n";
  many.close();
  const auto cut = attn::test::command_output(attnlab_exe + " validate " + tmp / "many.yaml" + " 2>&1");
  CHECK(cut.status == 2);
  CHECK_THAT(cut.text, Catch::Contains("... and 30 more") && Catch::Contains("80 problems found"));
  CHECK(std::count(cut.text.begin(), cut.text.end(), '\n') == 52);
}

TEST_CASE("one sweep crosses models on model.normalizer, the key every model takes", "[runner][normalizer]") {
  TempDir dir("attnlab-across-models");
  const std::string h5 = dir / "across.h5";
  const auto run = test::command_output(attnlab_exe + " run " + source_root + "/tests/specs/good/normalizer-across-models.yaml --output " +
                                        h5 + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  const ResultsReader file(h5);
  const std::vector<RunInfo> runs = file.runs();
  REQUIRE(runs.size() == 4);
  for (const RunInfo& r : runs) {
    const auto value = [&](const std::string& key) {
      const auto it = std::find_if(r.point.begin(), r.point.end(), [&](const auto& kv) { return kv.first == key; });
      REQUIRE(it != r.point.end());
      return it->second;
    };
    INFO(r.id);
    CHECK(succeeded(r.status));
    // The normalizer took effect in both models: a sigmoid map's rows do not all sum to 1.
    const AttentionMap m = file.example(r.id, "example_0").maps.front();
    double worst = 0.0;
    for (std::size_t q = 0; q < m.weights.shape()[2]; ++q) {
      double sum = 0.0;
      for (std::size_t k = 0; k < m.weights.shape()[3]; ++k) sum += m.weights(0, 0, q, k);
      worst = std::max(worst, std::abs(sum - 1.0));
    }
    INFO(value("model.name") << " " << m.name << ": rows' largest distance from a sum of 1 is " << worst);
    CHECK((value("model.normalizer") == "sigmoid") == (worst > 0.01));
  }
}
