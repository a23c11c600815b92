// Looking at results: inspect, plot and report on files the runner made; the h5py route of
// docs/analysis.md; and clear errors (never a crash) on files that are not attnlab results.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "lab/analysis/inspect.hpp"
#include "lab/analysis/report.hpp"
#include "lab/results/results_format.hpp"
#include "lab/runner/runner.hpp"
#include "lab/results/summary.hpp"
#include "lab/results/hdf5_file.hpp"
#include "test_support.hpp"

using namespace attn;
namespace fs = std::filesystem;
using attn::test::attnlab_exe;
using attn::test::source_root;

namespace {


struct Workspace {
  attn::test::TempDir dir{"attnlab-analysis"};
  std::string seq = dir / "seq.h5", nw = dir / "nw.h5";  // results of tests/specs/good/tiny-sweep.yaml and nw-fit.yaml
  Workspace() {
    RunnerOptions o;
    o.threads = 2;
    o.output = seq;
    REQUIRE(run_experiment(source_root + "/tests/specs/good/tiny-sweep.yaml", o) == 0);
    o.output = nw;
    REQUIRE(run_experiment(source_root + "/tests/specs/good/nw-fit.yaml", o) == 0);
  }
  std::string operator/(const std::string& f) const { return dir / f; }
};

struct Output {
  int code;
  std::string text;
};

// Runs a command, capturing stdout and stderr; the exit code is -1 when it died of a signal.
Output capture(const std::string& cmd) {
  const std::string log = "/tmp/attnlab-analysis-out-" + std::to_string(getpid());
  const int status = std::system((cmd + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(log.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ss.str()};
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("attention is recorded on the probe set: the same inputs for every seed, snapshots, metrics per head", "[analysis][probe]") {
  const Workspace w;
  const ResultsReader file(w.seq);
  const std::vector<std::string> ids = file.run_ids();  // 2 scorings x 2 seeds
  REQUIRE(ids.size() == 4);
  const ExampleAttention first = file.example(ids[0], "example_0");
  for (const std::string& id : ids) {
    INFO(id);
    const ExampleAttention ex = file.example(id, "example_0");
    CHECK(ex.source == first.source);  // every run and seed looks at the same input
    CHECK(ex.target == first.target);
    REQUIRE(ex.maps.size() == 1);
    CHECK(ex.maps[0].gold_keys.size() == ex.maps[0].queries.size());  // reverse: a gold key per query
    CHECK(file.snapshot_epochs(id) == std::vector<std::size_t>{1, 3});  // record.epochs: [1, 3]
    CHECK(file.snapshot(id, 1, "example_1").maps.at(0).name == "cross");
    const std::vector<MapMetrics> final_metrics = file.attention_metrics(id);
    REQUIRE(final_metrics.size() == 1);
    CHECK(final_metrics[0].map == "cross");
    for (const char* metric : {"entropy", "max_weight", "effective_keys", "alignment", "gold_mass"}) {
      INFO(metric);
      REQUIRE(final_metrics[0].values.count(metric));
      CHECK(file.run(id).metrics.count(std::string("attention.cross.") + metric));
    }
    CHECK(file.attention_metrics(id, 2).size() == 1);  // every evaluated epoch is measured
    bool column = false;
    for (const auto& [name, values] : file.history(id)) column |= name == "attention.cross.alignment";
    CHECK(column);
  }
  // The arrays say what they hold.
  const Hdf5File& h = file.hdf5();
  const std::string entropy = file.run_group(ids[0]) + "/attention_metrics/cross/entropy";
  CHECK(h.attr_string(entropy, "dims") == "layer,head");
  CHECK(h.attr_string(file.run_group(ids[0]) + "/attention/example_0/cross/weights", "dims") == "layer,head,query,key");
  CHECK(h.attr_string(file.run_group(ids[0]) + "/attention_history/cross/alignment", "dims") == "epoch,layer,head");
  CHECK(h.attr_string(file.run_group(ids[0]) + "/history/train_loss", "dims") == "epoch");
  CHECK_THAT(h.attr_string(file.run_group(ids[0]) + "/history/train_loss", "description"), Catch::Contains("mean over target tokens"));
  CHECK_THAT(h.attr_string(file.run_group(ids[0]) + "/params/decoder/output/W", "description"), Catch::Contains("decoder.output.W"));
  // compare shows the attention table beside the metrics
  const Summary summary = summarize(file.runs());
  const std::string table = format_summary(summary, TableFormat::text, headline_metrics(summary));
  CHECK_THAT(table, Catch::Contains("attention on the probe set") && Catch::Contains("gold_mass"));
}

TEST_CASE("a corpus's probe set is its validation split: an example past the first 32 is recorded too", "[analysis][probe]") {
  attn::test::TempDir tmp("attnlab-analysis");
  const std::string out = tmp / "corpus.h5";
  const Output r = capture(attnlab_exe + " run " + source_root + "/tests/specs/good/awkward-corpus.yaml --set dataset.num_valid=40" +
                           " --set record.attention=[0,35] --set training.epochs=1 --output " + out);
  INFO(r.text);
  REQUIRE(r.code == 0);
  const ResultsReader file(out);
  CHECK(file.examples(file.run_ids().at(0)) == std::vector<std::string>{"example_0", "example_35"});
  CHECK(capture(attnlab_exe + " validate " + source_root + "/tests/specs/good/awkward-corpus.yaml --set dataset.num_valid=40" +
                " --set record.attention=[40]").code == 2);  // past the 40 validation pairs
}

TEST_CASE("inspect: runs, config differences, stored maps; --run shows the tree with shapes", "[analysis][inspect]") {
  Workspace w;
  const Output all = capture(attnlab_exe + " inspect " + w.seq);
  REQUIRE(all.code == 0);
  CHECK_THAT(all.text, Catch::Contains("4 of 4 planned runs written"));
  CHECK_THAT(all.text, Catch::Contains("scoring-dot_seed-2"));
  CHECK_THAT(all.text, Catch::Contains("model.attention.scoring: additive, dot"));
  CHECK_THAT(all.text, Catch::Contains("seed: 1, 2"));
  CHECK_THAT(all.text, Catch::Contains("example_0/cross [1, 1,"));
  const Output one = capture(attnlab_exe + " inspect " + w.seq + " --run scoring-dot_seed-1");
  REQUIRE(one.code == 0);
  CHECK_THAT(one.text, Catch::Contains("params/") && Catch::Contains("W_ih  [8, 24]") && Catch::Contains("@status = finished"));
  CHECK_THAT(capture(attnlab_exe + " inspect " + w.seq + " --run scoring-dto_seed-1").text,
             Catch::Contains("did you mean 'scoring-dot_seed-1'?"));
}

TEST_CASE("inspect names a run whose parameters were changed after training; translate warns", "[analysis][inspect][checksum]") {
  Workspace w;
  const Output clean = capture(attnlab_exe + " inspect " + w.seq);
  CHECK_THAT(clean.text, Catch::Contains("parameters: the 4 checked run(s) hold the parameters they were trained to"));
  {  // what a hand edit does: one weight of one run set to 0 (the head-switching-off of a researcher)
    Hdf5File f(w.seq, Hdf5File::Mode::read_write);
    const std::string path = "/runs/scoring-dot_seed-1/params/decoder/output/W";
    Tensor value = f.read(path);
    value.data()[0] = 0.0f;
    f.remove(path);
    f.write(path, value);
  }
  const Output edited = capture(attnlab_exe + " inspect " + w.seq);
  REQUIRE(edited.code == 0);
  CHECK_THAT(edited.text, Catch::Contains("1 run(s) EDITED after training") &&
                              Catch::Contains("run 'scoring-dot_seed-1': its parameters were changed after training (checksum fnv1a64:"));
  CHECK_THAT(edited.text, !Catch::Contains("run 'scoring-dot_seed-2': its parameters"));
  CHECK_THAT(capture(attnlab_exe + " inspect " + w.seq + " --run scoring-dot_seed-1").text, Catch::Contains("WARNING: run 'scoring-dot_seed-1'"));
  const Output translated = capture(attnlab_exe + " translate " + w.seq + " --run scoring-dot_seed-1 \"1 2 3\"");
  CHECK(translated.code == 0);
  CHECK_THAT(translated.text, Catch::Contains("attnlab: warning: run 'scoring-dot_seed-1': its parameters were changed after training"));
  CHECK_THAT(capture(attnlab_exe + " translate " + w.seq + " --run scoring-dot_seed-2 \"1 2 3\"").text, !Catch::Contains("warning"));
}

TEST_CASE("plot: attention heatmaps with tokens, curves, the Nadaraya-Watson fit; SVG and PNG", "[analysis][plot]") {
  Workspace w;
  REQUIRE(capture(attnlab_exe + " plot " + w.seq + " --run scoring-additive_seed-1 --attention -o " + w / "a.svg").code == 0);
  const std::string svg = read(w / "a.svg");
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK_THAT(svg, Catch::Contains("&lt;eos&gt;"));           // token labels on the axes
  CHECK_THAT(svg, Catch::Contains("keys: source tokens"));
  CHECK_THAT(svg, Catch::Contains(">weight</text>"));        // the colour bar's legend
  REQUIRE(capture(attnlab_exe + " plot " + w.seq + " --curves -o " + w / "c.svg").code == 0);
  CHECK_THAT(read(w / "c.svg"), Catch::Contains("scoring-dot_seed-2 train_loss"));
  REQUIRE(capture(attnlab_exe + " plot " + w.nw + " --run scoring-gaussian_learned --fit -o " + w / "f.png").code == 0);
  CHECK(read(w / "f.png").substr(1, 3) == "PNG");
  CHECK_THAT(read(w / "f.svg"), Catch::Contains("training points") && Catch::Contains("kernel attention"));
  const Output no_fit = capture(attnlab_exe + " plot " + w.seq + " --run scoring-dot_seed-1 --fit");
  CHECK(no_fit.code == 2);  // what was asked for is wrong (docs/running-experiments.md, exit codes)
  CHECK_THAT(no_fit.text, Catch::Contains("only nadaraya_watson runs do"));
  CHECK(capture(attnlab_exe + " plot " + w.seq + " --attention").code == 2);  // which run?
}

TEST_CASE("plot and report refuse what they cannot honour, and write nothing", "[analysis][plot][errors]") {
  Workspace w;
  const std::string run = " --run scoring-dot_seed-1 --attention";
  const Output pdf = capture(attnlab_exe + " plot " + w.seq + run + " -o " + w / "a.pdf");
  CHECK(pdf.code == 2);
  CHECK_THAT(pdf.text, Catch::Contains("unknown extension '.pdf'; write .svg or .png"));
  CHECK_FALSE(fs::exists(w / "a.pdf"));
  const Output both = capture(attnlab_exe + " plot " + w.seq + run + " --head 0 --average -o " + w / "b.svg");
  CHECK(both.code == 2);
  CHECK_THAT(both.text, Catch::Contains("--head and --average exclude each other"));
  CHECK_FALSE(fs::exists(w / "b.svg"));
  const Output both_names = capture(attnlab_exe + " report " + w.seq + " -o " + w / "a.html --output " + w / "b.html");
  CHECK(both_names.code == 2);  // -o took precedence without a word
  CHECK_THAT(both_names.text, Catch::Contains("-o and --output are one option"));
  // A model without attention: said as that (it was "nothing to draw for that layer/head selection").
  std::ofstream(w / "none.yaml") << "name: none\ndataset: {name: sequence_task, task: reverse, num_train: 64, num_valid: 8, "
                                    "num_steps: 6, max_len: 4}\nmodel: {name: seq2seq, embed: 8, hidden: 8, attention: none}\n"
                                    "training: {epochs: 1, batch_size: 32}\n";
  REQUIRE(capture(attnlab_exe + " run " + w / "none.yaml" + " --output " + w / "none.h5").code == 0);
  const Output no_maps = capture(attnlab_exe + " plot " + w / "none.h5" + " --attention -o " + w / "n.svg");
  CHECK(no_maps.code == 2);
  CHECK_THAT(no_maps.text, Catch::Contains("recorded no attention map for example_0: its model computes no attention"));
  const Output other = capture(attnlab_exe + " plot " + w.seq + " --curves --layer 5 -o " + w / "l.svg");
  CHECK(other.code == 2);  // it was drawn, the option ignored
  CHECK_THAT(other.text, Catch::Contains("--layer does not apply to --curves (it is an option of --attention)"));
  CHECK_FALSE(fs::exists(w / "l.svg"));
  const Output txt = capture(attnlab_exe + " report " + w.seq + " -o " + w / "r.txt");
  CHECK(txt.code == 2);
  CHECK_FALSE(fs::exists(w / "r.txt"));
  // A PNG that cannot be written is refused before the SVG beside it is touched.
  std::ofstream(w / "mine.svg") << "the user's own picture";
  fs::create_directory(w / "mine.png");
  const Output dir = capture(attnlab_exe + " plot " + w.seq + run + " -o " + w / "mine.png");
  CHECK(dir.code == 2);
  CHECK_THAT(dir.text, Catch::Contains("mine.png: this is a directory, not a file"));
  CHECK(read(w / "mine.svg") == "the user's own picture");
  // Without rsvg-convert on PATH nothing is written.
  const Output no_tool = capture("PATH=/nonexistent " + attnlab_exe + " plot " + w.seq + run + " -o " + w / "p.png");
  CHECK(no_tool.code == 2);
  CHECK_THAT(no_tool.text, Catch::Contains("a PNG needs rsvg-convert"));
  CHECK_FALSE(fs::exists(w / "p.svg"));
  // An rsvg-convert that exits 0 and writes nothing is said as such, not as a missing file.
  fs::create_directory(w / "bin");
  std::ofstream(w / "bin/rsvg-convert") << "#!/bin/sh\nexit 0\n";
  fs::permissions(w / "bin/rsvg-convert", fs::perms::owner_all);
  const Output silent = capture("PATH=" + w / "bin" + ":$PATH " + attnlab_exe + " plot " + w.seq + run + " -o " + w / "s.png");
  CHECK(silent.code == 1);
  CHECK_THAT(silent.text, Catch::Contains("rsvg-convert wrote no PNG"));
  // The path reaches rsvg-convert as one argument: shell code in it is a file name, not a command.
  const std::string odd = "x';touch INJECTED;'.png";  // run in w, where INJECTED would land
  const Output quoted = capture("cd " + w / "." + " && " + attnlab_exe + " plot " + w.seq + run + " -o \"" + odd + "\"");
  CHECK(quoted.code == 0);
  CHECK(read(w / odd).substr(1, 3) == "PNG");
  CHECK_FALSE(fs::exists(w / "INJECTED"));
}

TEST_CASE("plot: one [0, 1] colour scale for every panel by default, <pad> rows dropped, the target beside a wrong prediction",
          "[analysis][plot]") {
  Workspace w;
  const ResultsReader file(w.seq);
  const ExampleAttention ex = file.example("scoring-dot_seed-1", "example_0");
  REQUIRE(capture(attnlab_exe + " plot " + w.seq + " --run scoring-dot_seed-1 --attention -o " + w / "a.svg").code == 0);
  const std::string shared = read(w / "a.svg");
  CHECK_THAT(shared, Catch::Contains(">1</text>"));  // the colour bar ends at 1
  CHECK(shared.find("&lt;pad&gt;") == std::string::npos);
  if (ex.prediction != ex.target) CHECK_THAT(shared, Catch::Contains("(target &quot;" + ex.target + "&quot;)"));
  REQUIRE(capture(attnlab_exe + " plot " + w.seq + " --run scoring-dot_seed-1 --attention --own-scale -o " + w / "o.svg").code == 0);
  CHECK_THAT(read(w / "o.svg"), Catch::Contains("(own scale)"));
}

TEST_CASE("run: start lines carry the run's sweep position; a model with nothing to train says so", "[analysis][progress]") {
  Workspace w;
  const Output sweep = capture(attnlab_exe + " run " + source_root + "/tests/specs/good/tiny-sweep.yaml --threads 1 --output " + w / "t.h5");
  REQUIRE(sweep.code == 0);
  for (int i = 1; i <= 4; ++i) CHECK_THAT(sweep.text, Catch::Contains("[run " + std::to_string(i) + " of 4] start"));
  const Output nw = capture(attnlab_exe + " run " + source_root + "/tests/specs/good/nw-fit.yaml --output " + w / "n.h5");
  REQUIRE(nw.code == 0);
  CHECK_THAT(nw.text, Catch::Contains("start scoring-gaussian (nothing to train: evaluated only)"));
  CHECK_THAT(nw.text, Catch::Contains("start scoring-gaussian_learned (5 epochs)"));
}

TEST_CASE("report: one self-contained HTML file with table, curves and heatmaps", "[analysis][report]") {
  Workspace w;
  REQUIRE(capture(attnlab_exe + " report " + w.seq + " -o " + w / "r.html").code == 0);
  const std::string html = read(w / "r.html");
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("<h2>Comparison</h2>") && Catch::Contains("scoring=additive"));
  CHECK_THAT(html, Catch::Contains("<section id=\"curves\">") && Catch::Contains("<section id=\"explorer\">"));
  // The panels' data: every run's maps, with the snapshots of record.epochs [1, 3] before the final ones.
  CHECK_THAT(html, Catch::Contains("\"id\":\"scoring-dot_seed-2\"") && Catch::Contains("\"name\":\"cross\""));
  CHECK_THAT(html, Catch::Contains("{\"epoch\":\"1\",\"maps\"") && Catch::Contains("{\"epoch\":\"final\",\"maps\""));
  // Nothing fetched from a network: scripts are inline, no src= anywhere, and the only URL is
  // the SVG namespace name.
  CHECK(html.find("src=") == std::string::npos);
  const std::string without_ns = std::regex_replace(html, std::regex("\"http://www.w3.org/2000/svg\""), "");
  CHECK(without_ns.find("http://") == std::string::npos);
  CHECK(without_ns.find("https://") == std::string::npos);
  REQUIRE(capture(attnlab_exe + " report " + w.nw + " -o " + w / "nw.html").code == 0);
  CHECK_THAT(read(w / "nw.html"), Catch::Contains("Nadaraya-Watson fit"));
}

TEST_CASE("a run's --set values and sweep values are in its group and highlighted in the report", "[analysis][report]") {
  attn::test::TempDir tmp("attnlab-analysis");
  const std::string out = tmp / "set.h5";
  REQUIRE(capture(attnlab_exe + " run " + source_root + "/tests/specs/good/tiny-sweep.yaml --set model.embed=16 --set sweep.seed=[3] --output " + out).code == 0);
  const ResultsReader file(out);
  const RunInfo run = file.run("scoring-dot_seed-3");
  CHECK(run.overrides == SweepPoint{{"model.embed", "16"}, {"seed", "3"}});  // the swept key, as the run got it
  CHECK(run.point == SweepPoint{{"model.attention.scoring", "dot"}, {"seed", "3"}});
  CHECK_THAT(file.config("scoring-dot_seed-3"), Catch::Contains("embed: 16"));
  REQUIRE(capture(attnlab_exe + " report " + out + " -o " + tmp / "r.html").code == 0);
  const std::string html = read(tmp / "r.html");
  CHECK_THAT(html, Catch::Contains("<mark><code>model.embed = 16</code></mark>"));
  CHECK_THAT(html, Catch::Contains("<mark><code>model.attention.scoring = dot</code></mark>"));
}

TEST_CASE("probe: a trained run looks at typed inputs; their maps join the file, plot and report show them", "[analysis][probe]") {
  Workspace w;
  const std::string run = " --run scoring-additive_seed-2 ";
  const Output typed = capture(attnlab_exe + " probe " + w.seq + run + "\"1 2 3\" \"9 9 4 2\"");
  INFO(typed.text);
  REQUIRE(typed.code == 0);
  CHECK_THAT(typed.text, Catch::Contains("probe_0: 1 2 3 =>") && Catch::Contains("probe_1: 9 9 4 2 =>"));
  {
    const ResultsReader file(w.seq);
    CHECK(file.probes("scoring-additive_seed-2") == std::vector<std::string>{"probe_0", "probe_1"});
    const ExampleAttention p = file.example("scoring-additive_seed-2", "probe_1");
    CHECK(p.source == "9 9 4 2");
    REQUIRE(p.maps.size() == 1);
    CHECK(p.maps[0].keys == std::vector<std::string>{"9", "9", "4", "2", "<eos>", "<pad>"});
  }
  // A token the run never saw: an error naming it, and nothing added.
  const Output unknown = capture(attnlab_exe + " probe " + w.seq + run + "\"1 x\"");
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Catch::Contains("token 'x' is not in the vocabulary"));
  CHECK(ResultsReader(w.seq).probes("scoring-additive_seed-2").size() == 2);
  // Typed again: numbered after the ones there.
  REQUIRE(capture(attnlab_exe + " probe " + w.seq + run + "\"5 5\"").code == 0);
  CHECK(ResultsReader(w.seq).probes("scoring-additive_seed-2").back() == "probe_2");
  REQUIRE(capture(attnlab_exe + " plot " + w.seq + run + "--attention --probe 2 -o " + w / "p.svg").code == 0);
  CHECK_THAT(read(w / "p.svg"), Catch::Contains("probe_2: &quot;5 5&quot;"));
  REQUIRE(capture(attnlab_exe + " report " + w.seq + " -o " + w / "r.html").code == 0);
  CHECK_THAT(read(w / "r.html"), Catch::Contains("probe_2"));
}

TEST_CASE("the h5py route: docs/analysis_example.py lists runs, loads a parameter, draws a map", "[analysis][h5py][slow]") {
  Workspace w;
  const Output out = capture("/usr/bin/python3 " + source_root + "/docs/analysis_example.py " + w.seq + " " + w / "m.png");
  INFO(out.text);
  REQUIRE(out.code == 0);
  CHECK_THAT(out.text, Catch::Contains("scoring-additive_seed-1") && Catch::Contains("decoder.output.W (8,"));
  CHECK(read(w / "m.png").substr(1, 3) == "PNG");
}

TEST_CASE("files in HDF5's old format, without checksums, are refused before libhdf5 parses them", "[analysis][errors]") {
  // The second file was found by the results fuzzer: it made libhdf5 1.10 segfault while
  // listing attributes. attnlab reads only the checksummed format it writes; h5repack -L
  // converts an intact old file.
  const std::string regressions = source_root + "/tests/fuzz/regressions/";
  for (const std::string file : {"results-old-format.h5", "results-hdf5-crash-old-format.h5"})
    for (const std::string cmd : {"inspect", "compare", "report"}) {
      const Output out = capture(attnlab_exe + " " + cmd + " " + regressions + file);
      INFO(cmd << " " << file << ": " << out.text);
      CHECK(out.code == 1);
      CHECK_THAT(out.text, Catch::Contains("old file format (superblock version 0)") && Catch::Contains("h5repack -L"));
    }
  Workspace w;
  REQUIRE(capture("h5repack -L " + regressions + "results-old-format.h5 " + w / "converted.h5").code == 0);
  const Output converted = capture(attnlab_exe + " inspect " + w / "converted.h5");
  INFO(converted.text);
  CHECK(converted.code == 0);
  CHECK_THAT(converted.text, Catch::Contains("attnlab results"));
}

TEST_CASE("damage anywhere in a results file gives an error or a correct read, never a crash", "[analysis][errors]") {
  // A byte flipped every 97 bytes in turn, read as inspect, compare and report read (the
  // fuzz target's sequence). Damaged metadata is caught by HDF5's checksums; damaged data
  // reads as other numbers, or is refused by attnlab's own checks. Under AddressSanitizer, whose
  // reads take about 8 times as long, every 8th of those places.
#ifdef __SANITIZE_ADDRESS__
  const std::size_t stride = 97 * 8;
#else
  const std::size_t stride = 97;
#endif
  Workspace w;
  const std::string intact = read(w.seq);
  const std::string damaged = w / "damaged.h5";
  int errors = 0, checksum_errors = 0;
  for (std::size_t offset = 0; offset < intact.size(); offset += stride) {
    std::string bytes = intact;
    bytes[offset] = static_cast<char>(bytes[offset] ^ 0x5a);
    std::ofstream(damaged, std::ios::binary | std::ios::trunc) << bytes;
    try {
      (void)inspect_results(damaged);
      for (const std::string& id : ResultsReader(damaged).run_ids()) (void)inspect_run(damaged, id);
      (void)summarize(ResultsReader(damaged).runs());
      (void)html_report(damaged);
    } catch (const std::exception& e) {
      ++errors;
      const std::string message = e.what();
      INFO(message);
      CHECK_THAT(message, Catch::StartsWith(damaged + ": "));
      if (message.find("checksum") != std::string::npos) ++checksum_errors;
    }
  }
  INFO(errors << " of " << intact.size() / stride + 1 << " damaged files refused, " << checksum_errors << " by a checksum");
  CHECK(checksum_errors > 0);
  CHECK(errors < static_cast<int>(intact.size() / stride));  // damage in raw data reads on
}

TEST_CASE("a read that does not finish is stopped after ATTNLAB_READ_TIMEOUT with a clear error", "[analysis][errors]") {
  // A limit of a microsecond stands for a read that does not finish (a file system that does not
  // answer, a file the library loops on): any real read outlasts it, and the child is stopped.
  // (A FIFO, which used to stand for it, is now refused before it is opened: test_reliability.)
  Workspace w;
  const auto start = std::chrono::steady_clock::now();
  const Output out = capture("ATTNLAB_READ_TIMEOUT=0.000001 " + attnlab_exe + " inspect " + w.seq);
  INFO(out.text);
  CHECK(out.code == 1);
  CHECK_THAT(out.text, Catch::Contains(w.seq + ": reading took longer than 1e-06 s and was stopped"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  for (const std::string value : {"soon", "0x10", "inf", "' 5'"}) {  // decimal numbers only, as everywhere else
    const Output bad = capture("ATTNLAB_READ_TIMEOUT=" + value + " " + attnlab_exe + " inspect " + w.seq);
    INFO(value << ": " << bad.text);
    CHECK(bad.code == 2);
    CHECK_THAT(bad.text, Catch::Contains("is not a number of seconds"));
  }
}

TEST_CASE("files that are not attnlab results give a clear error, never a crash", "[analysis][errors]") {
  Workspace w;
  std::ofstream(w / "text.h5") << "just some text\n";
  { Hdf5File other(w / "other.h5", Hdf5File::Mode::create_truncate); other.write("/x", Tensor{1.0f, 2.0f}); }
  const std::string full = read(w.seq);
  std::ofstream(w / "truncated.h5", std::ios::binary) << full.substr(0, full.size() / 2);
  // Found by fuzzing: a dataset claiming more data than the file holds (regression seed).
  const std::string huge = source_root + "/tests/fuzz/regressions/results-huge-dataset.h5";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {huge, "(a damaged file)"},
      {w / "missing.h5", "no such file"},
      {w / "text.h5", "not an HDF5 file"},
      {w / "other.h5", "not an attnlab results file"},
      {w / "truncated.h5", w / "truncated.h5"}};
  for (const auto& [file, message] : cases)
    for (const std::string cmd : {"inspect", "compare", "report", "plot --curves"}) {
      if (file == huge && cmd != "report") continue;  // only the report reads that dataset
      const Output out = capture(attnlab_exe + " " + cmd + " " + file);
      INFO(cmd << " " << file << ": " << out.text);
      CHECK(out.code == 1);
      CHECK_THAT(out.text, Catch::Contains(message));
      CHECK(std::count(out.text.begin(), out.text.end(), '\n') <= 2);
    }
}

TEST_CASE("the Python module reads results into pandas, of this format and of format 6; so does attnlab", "[analysis][python][slow]") {
  Workspace w;
  const std::string old = w / "old-layout.h5";
  const Output out = capture("PYTHONPATH=" + source_root + "/framework/lab/python /usr/bin/python3 " + source_root +
                             "/tests/check_python_module.py " + w.seq + " " + old);
  INFO(out.text);
  REQUIRE(out.code == 0);
  CHECK_THAT(out.text, Catch::EndsWith("ok\n"));
  // attnlab reads the per-head history and the snapshots of format 6 from inside history/
  const ResultsReader now(w.seq), before(old);
  for (const RunInfo& r : now.runs()) {
    CHECK(before.snapshot_epochs(r.id) == now.snapshot_epochs(r.id));
    REQUIRE(!now.snapshot_epochs(r.id).empty());
    const std::size_t epoch = now.snapshot_epochs(r.id).back();
    CHECK(before.attention_metrics(r.id, epoch).at(0).values == now.attention_metrics(r.id, epoch).at(0).values);
    const bool same_snapshot = before.snapshot(r.id, epoch, "example_0").maps.at(0).weights == now.snapshot(r.id, epoch, "example_0").maps.at(0).weights;
    CHECK(same_snapshot);
  }
  // meson installs the module where Debian's python3 finds it (for the build's prefix, /usr/local)
  const Output installed = capture("meson introspect " + std::string(attn::test::paths::build_root) + " --installed");
  const std::string key = "python/attnlab.py\": \"";  // {"<source>": "<destination>", ...}
  const std::size_t from = installed.text.find(key);
  REQUIRE(from != std::string::npos);
  const std::string destination = installed.text.substr(from + key.size(), installed.text.find('"', from + key.size()) - from - key.size());
  const std::string dir = destination.substr(0, destination.rfind('/'));
  INFO("installed into " << dir);
  CHECK(capture("/usr/bin/python3 -c 'import sys; sys.exit(0 if \"" + dir + "\" in sys.path else 1)'").code == 0);
}

TEST_CASE("a swept value holding a quote or a bar keeps its cell in CSV and Markdown", "[analysis][compare]") {
  Summary s;
  s.metrics = {"valid_loss"};
  SummaryRow row;
  row.point = "path=a \"b\" | c";
  row.runs = row.ok = 1;
  row.metrics["valid_loss"] = {0.5, 0.0};
  s.rows = {row};
  const std::string csv = format_summary(s, TableFormat::csv, s.metrics);
  INFO(csv);
  CHECK_THAT(csv, Catch::Contains("\n\"path=a \"\"b\"\" | c\",1,1,0.5,0,"));  // RFC 4180: the quote doubled
  const std::string markdown = format_summary(s, TableFormat::markdown, s.metrics);
  INFO(markdown);
  CHECK_THAT(markdown, Catch::Contains("| path=a \"b\" \\| c |"));  // the bar escaped: the row keeps its cells
  std::size_t bars = 0;
  const std::string data_row = markdown.substr(markdown.find("| path="), markdown.find('\n', markdown.find("| path=")) - markdown.find("| path="));
  for (std::size_t i = 0; i < data_row.size(); ++i) bars += data_row[i] == '|' && (i == 0 || data_row[i - 1] != '\\');
  const std::string header_row = markdown.substr(0, markdown.find('\n'));
  CHECK(bars == static_cast<std::size_t>(std::count(header_row.begin(), header_row.end(), '|')));
}

TEST_CASE("names holding terminal escapes are printed as text: a run renamed by another program, a plugin's name", "[analysis][inspect]") {
  Workspace w;
  REQUIRE(capture("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + w.seq +
                  "', 'r+'); f.move('/runs/scoring-dot_seed-1', '/runs/red\\x1b[31m'); f.close()\"").code == 0);
  const Output shown = capture(attnlab_exe + " inspect " + w.seq);
  INFO(shown.text);
  CHECK(shown.code == 0);
  CHECK_THAT(shown.text, Catch::Contains("red?[31m"));
  CHECK(shown.text.find('\x1b') == std::string::npos);
  const Output plugins = capture(attnlab_exe + " plugins --plugin " + attn::test::paths::bad_plugin_dir + "/libbad-escape_name.so");
  INFO(plugins.text);
  CHECK(plugins.code == 0);
  CHECK_THAT(plugins.text, Catch::Contains("red?[31m") && Catch::Contains("turns the terminal ?[31mred"));
  CHECK(plugins.text.find('\x1b') == std::string::npos);
}

namespace {

// The rows of weights translate --attention printed under its heading line that contains `heading`.
std::vector<std::vector<double>> printed_weights(const std::string& text, const std::string& heading) {
  REQUIRE(text.find(heading) != std::string::npos);
  std::istringstream lines(text.substr(text.find(heading)));
  std::string line;
  std::getline(lines, line);  // the heading
  std::getline(lines, line);  // the source tokens
  std::vector<std::vector<double>> rows;
  while (std::getline(lines, line) && !line.empty() && line.find("attention") == std::string::npos) {
    std::istringstream fields(line.substr(10));  // after the output token's 8 columns
    rows.emplace_back(std::istream_iterator<double>(fields), std::istream_iterator<double>());
  }
  return rows;
}

}  // namespace

TEST_CASE("translate --attention --layer L --head H|mean: any layer and head of the cross-attention, or the heads' mean",
          "[analysis][translate][slow]") {
  attn::test::TempDir dir("attnlab-translate");
  const std::string file = dir / "t.h5", sentence = " --run d_model-8_seed-1 --attention \"1 2 3\"";
  REQUIRE(capture(attnlab_exe + " run " + source_root + "/tests/specs/good/tiny-transformer.yaml --set training.epochs=40 "
                         "--set 'sweep.model.d_model=[8]' --set 'sweep.seed=[1]' --output " + file)
              .code == 0);  // (one run, trained to write a few tokens: a few rows)
  const Output first = capture(attnlab_exe + " translate " + file + sentence + " 2>/dev/null");  // layer 0, head 0 by default
  REQUIRE(first.code == 0);
  CHECK_THAT(first.text, Catch::Contains("cross attention, layer 0 of 2, head 0 of 2 (rows: output tokens, columns: source tokens)"));
  std::vector<std::vector<std::vector<double>>> heads;
  for (const char* head : {"0", "1"}) {
    const Output shown = capture(attnlab_exe + " translate " + file + sentence + " --layer 1 --head " + head + " 2>/dev/null");
    REQUIRE(shown.code == 0);
    heads.push_back(printed_weights(shown.text, std::string("layer 1 of 2, head ") + head + " of 2"));
  }
  const Output mean = capture(attnlab_exe + " translate " + file + sentence + " --layer 1 --head mean 2>/dev/null");
  REQUIRE(mean.code == 0);
  const auto rows = printed_weights(mean.text, "layer 1 of 2, the mean of its 2 heads");
  REQUIRE(rows.size() >= 3);
  REQUIRE(rows.size() == heads[0].size());
  CHECK(heads[0] != heads[1]);  // two heads that differ, so the mean is no copy of either
  for (std::size_t q = 0; q < rows.size(); ++q)
    for (std::size_t k = 0; k < rows[q].size(); ++k) CHECK(std::abs(rows[q][k] - (heads[0][q][k] + heads[1][q][k]) / 2) <= 0.011);
  // Out of range, or without --attention: exit 2 before anything is printed.
  for (const auto& [options, says] : std::vector<std::pair<std::string, std::string>>{
           {" --layer 2", "--layer must be an integer in [0, 1], got '2'"},
           {" --head 2", "--head must be a head of the map, 0 to 1, or mean (the heads' mean), got '2'"},
           {" --head all", "got 'all'"}}) {
    const Output refused = capture(attnlab_exe + " translate " + file + sentence + options);
    INFO(options << ": " << refused.text);
    CHECK(refused.code == 2);
    CHECK_THAT(refused.text, Catch::Contains(says) && !Catch::Contains("=>"));
  }
  const Output without = capture(attnlab_exe + " translate " + file + " --run d_model-8_seed-1 --head 1 \"1 2 3\"");
  CHECK(without.code == 2);
  CHECK_THAT(without.text, Catch::Contains("give --attention too"));
  // A model without attention to the source: --layer and --head choose nothing.
  const std::string plain = dir / "plain.h5";
  std::ofstream(dir / "plain.yaml") << "dataset: {name: sequence_task, task: reverse, num_train: 64, num_valid: 8, num_steps: 6, max_len: 4}\n"
                                       "model: {name: seq2seq, embed: 8, hidden: 8, layers: 1, attention: none}\n"
                                       "training: {epochs: 1, batch_size: 32, lr: 0.01}\n";
  REQUIRE(capture(attnlab_exe + " run " + (dir / "plain.yaml") + " --output " + plain).code == 0);
  const Output nothing = capture(attnlab_exe + " translate " + plain + " --attention --layer 0 \"1 2 3\"");
  CHECK(nothing.code == 2);
  CHECK_THAT(nothing.text, Catch::Contains("this model has no attention to the source to show") && !Catch::Contains("=>"));
}
