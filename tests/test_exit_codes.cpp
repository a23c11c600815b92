// One exit-code table for every command (docs/running-experiments.md, "Exit codes"): the same
// situation gives the same code whichever command meets it; outputs that are not files are
// refused before any work; what attnlab writes as UTF-8 is valid UTF-8.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "attnlab/data/text.hpp"
#include "test_support.hpp"

using attn::test::attnlab_exe;
using attn::test::command_output;
using attn::test::source_root;
using attn::test::TempDir;
namespace fs = std::filesystem;

namespace {

attn::test::CommandOutput attnlab(const std::string& args) {
  return command_output("timeout 60 " + attnlab_exe + " " + args + " 2>&1");
}

const std::string tiny = source_root + "/tests/specs/good/tiny-sweep.yaml";

// A trained tiny sweep (4 runs, 1 epoch), shared by the cases below.
const std::string& results() {
  static TempDir dir("attnlab-exit-codes");
  static const std::string path = [] {
    const std::string p = dir / "r.h5";
    REQUIRE(attnlab("run " + tiny + " --set training.epochs=1 --output " + p).status == 0);
    return p;
  }();
  return path;
}

void expect(const std::string& args, int code, const std::string& says) {
  const auto r = attnlab(args);
  INFO("attnlab " << args << "\n" << r.text);
  CHECK(r.status == code);
  CHECK_THAT(r.text, Catch::Contains(says));
}

}  // namespace

TEST_CASE("a name the user typed that the file does not hold is exit 2 in every command", "[exit-codes]") {
  const std::string& r = results();
  expect("inspect " + r + " --run nope", 2, "unknown run 'nope'");
  expect("translate " + r + " --run nope 1 2", 2, "unknown run 'nope'");
  expect("probe " + r + " --run nope 1 2", 2, "unknown run 'nope'");
  expect("plot " + r + " --run nope --attention", 2, "unknown run 'nope'");
  expect("plot " + r + " --run scoring-dot_seed-1 --attention --map nope", 2, "unknown attention map 'nope'");
  expect("plot " + r + " --run scoring-dot_seed-1 --curves --metric nope", 2, "unknown metric 'nope'");
  expect("plot " + r + " --run scoring-dot_seed-1 --attention --layer 7", 2, "layer 7 out of range");
  expect("plot " + r + " --run scoring-dot_seed-1 --fit", 2, "only nadaraya_watson runs do");
  expect("translate " + r + " --run scoring-dot_seed-1 x", 2, "not in the vocabulary");
  expect("probe " + r + " --run scoring-dot_seed-1 ''", 2, "an empty sentence");  // it wrote an empty probe
  expect("translate " + r + " --run scoring-dot_seed-1 \"$(printf '1\\0332')\"", 2, "control character (U+001B)");
}

TEST_CASE("a diverged run is refused by every command that would decode with it, with the way out", "[exit-codes]") {
  const TempDir dir("attnlab-diverged");
  const std::string d = dir / "d.h5";
  REQUIRE(attnlab("run " + tiny + " --set training.lr=1e30 --set training.epochs=1 --output " + d).status == 1);  // every run diverges
  for (const std::string& command : std::vector<std::string>{"translate " + d + " --run scoring-dot_seed-1 \"2 1 2\"", "probe " + d + " --run scoring-dot_seed-1 \"2 1 2\"",
                                    "ablate " + d + " --run scoring-dot_seed-1"})
    expect(command, 2, "run 'scoring-dot_seed-1' diverged while training");
  expect("inspect " + d, 0, "diverged");  // what it holds can still be looked at
}

TEST_CASE("translate says when a sentence is longer than the run's sources, and what it translated", "[exit-codes]") {
  const auto r = attnlab("translate " + results() + " --run scoring-dot_seed-1 \"3 1 4 1 5 9 2 6 5 3 5 8 9 7 9\"");
  INFO(r.text);
  CHECK(r.status == 0);
  CHECK_THAT(r.text, Catch::Contains("has 15 tokens; the run's sources hold at most") && Catch::Contains("were translated"));
  CHECK_THAT(r.text, Catch::Contains("3 1 4 1 5 9 2 6 5 3 5 8 9 7 9 => "));
}

TEST_CASE("a file that cannot be read is exit 1 in every reading command; a plugin that does not load is 2", "[exit-codes]") {
  TempDir tmp("attnlab-exit-codes");
  std::ofstream(tmp / "text.h5") << "not a results file";
  for (const char* command : {"inspect", "compare", "report", "plot"}) expect(std::string(command) + " " + tmp / "text.h5", 1, "text.h5");
  expect("translate " + tmp / "text.h5" + " 1 2", 1, "text.h5");
  const std::string missing_plugin = "--plugin " + tmp / "nope.so";
  expect("validate " + tiny + " " + missing_plugin, 2, "nope.so");
  expect("plugins " + missing_plugin, 2, "nope.so");
  expect("translate " + results() + " --run scoring-dot_seed-1 " + missing_plugin + " 1 2", 2, "nope.so");
}

TEST_CASE("an output that is a directory or a FIFO is refused before any work, even with --force", "[exit-codes][faults]") {
  TempDir tmp("attnlab-exit-codes");
  for (const char* out : {"dir.h5", "dir.html", "dir.svg"}) fs::create_directory(tmp / out);
  for (const char* out : {"fifo.h5", "fifo.html", "fifo.svg"}) REQUIRE(mkfifo((tmp / out).c_str(), 0644) == 0);
  for (const std::string kind : {"dir", "fifo"}) {
    const std::string what = kind == "dir" ? "this is a directory" : "this is a FIFO";
    expect("run " + tiny + " --set training.epochs=1 --force --output " + tmp / (kind + ".h5"), 2, what);
    expect("merge " + tmp / (kind + ".h5") + " " + results() + " --force --allow-missing", 2, what);
    expect("report " + results() + " -o " + tmp / (kind + ".html"), 2, what);
    expect("plot " + results() + " --curves -o " + tmp / (kind + ".svg"), 2, what);
    CHECK(fs::is_directory(tmp / "dir.h5"));
    CHECK(fs::is_fifo(tmp / "fifo.h5"));
  }
  CHECK(fs::is_fifo(tmp / "fifo.html"));
  std::size_t files = 0;  // nothing else was left there
  for (const auto& e : fs::directory_iterator(tmp.path)) files += e.is_regular_file();
  CHECK(files == 0);
}

TEST_CASE("what attnlab writes as UTF-8 is valid UTF-8; --set values must be UTF-8", "[exit-codes][utf8]") {
  using attn::valid_utf8;
  CHECK(valid_utf8("café") == "café");
  CHECK(valid_utf8("caf\xc3") == "caf\xEF\xBF\xBD");             // a cut two-byte sequence
  CHECK(valid_utf8("bad\xe9name") == "bad\xEF\xBF\xBDname");     // Latin-1
  CHECK_FALSE(attn::invalid_utf8_at(valid_utf8("\xff\xfe\xed\xa0\x80 ok")));
  CHECK(attn::utf8_prefix("ééé", 5) == "éé");                     // never half a character
  CHECK(attn::utf8_prefix("abc", 5) == "abc");
  CHECK(attn::utf8_fit("aéé", 5) == "aéé  ");
  CHECK(attn::utf8_fit("éééééé", 3) == "ééé");
  expect("validate " + tiny + " --set \"$(printf 'name=caf\\303')\"", 2, "not valid UTF-8 at byte 9");
  // a spec whose file name is not UTF-8: its name (the file's stem) is stored as valid UTF-8
  TempDir tmp("attnlab-exit-codes");
  const std::string odd = tmp / "bad\xe9name.yaml";
  fs::copy_file(tiny, odd);
  REQUIRE(attnlab("run '" + odd + "' --set training.epochs=1 --set 'sweep.seed=[1]' --set 'sweep.model.attention.scoring=[dot]' --output " + tmp / "o.h5").status == 0);
  const auto path = command_output("/usr/bin/python3 -c \"import h5py, sys; print(h5py.File(sys.argv[1])['/'].attrs['spec_path'].decode('utf-8'))\" " +
                                   tmp / "o.h5");  // strict decoding: it fails on invalid UTF-8
  CHECK(path.text == valid_utf8(odd) + "\n");
  CHECK_THAT(path.text, Catch::Contains("bad\uFFFDname.yaml"));
  REQUIRE(attnlab("report " + tmp / "o.h5" + " -o " + tmp / "o.html").status == 0);
  std::ifstream page(tmp / "o.html", std::ios::binary);
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  CHECK_FALSE(attn::invalid_utf8_at(html));
}

TEST_CASE("outputs in places where no file can be: missing or file 'directories', the spec itself, over-long names", "[exit-codes][faults]") {
  TempDir tmp("attnlab-exit-codes");
  std::ofstream(tmp / "afile") << "a file, not a directory";
  const std::string spec = tmp / "spec.yaml";
  fs::copy_file(tiny, spec);
  const std::string epochs = " --set training.epochs=1 --set 'sweep.seed=[1]' ";
  for (const std::string& command : std::vector<std::string>{"run " + tiny + epochs + "--output ", "merge ", "report " + results() + " -o ",
                                     "plot " + results() + " --curves -o "}) {
    const std::string tail = command.rfind("merge", 0) == 0 ? " " + results() + " --allow-missing" : "";
    const std::string ext = command.rfind("report", 0) == 0 ? ".html" : command.rfind("plot", 0) == 0 ? ".svg" : ".h5";
    expect(command + tmp / ("no/such/dir/x" + ext) + tail, 2, "does not exist; create it");
    expect(command + tmp / ("afile/x" + ext) + tail, 2, "afile' is a file, not a directory");
    expect(command + tmp / (std::string(230, 'a') + ext) + tail, 2, "bytes long");
  }
  expect("run " + spec + epochs + "--force --output " + spec, 2, "is the spec itself");
  CHECK(attnlab("validate " + spec).status == 0);  // the spec is still the spec
  fs::create_directory(tmp / "adir");
  const auto merged = attnlab("merge " + tmp / "adir" + " " + results() + " --allow-missing");
  CHECK(merged.status == 2);
  CHECK_THAT(merged.text, Catch::Contains("this is a directory") && !Catch::Contains("use --force"));
}

TEST_CASE("run and file names are names, not paths into the file", "[exit-codes]") {
  for (const char* run : {"''", "scoring-dot_seed-1/params", "scoring-dot_seed-1/attention", "."}) {
    expect("inspect " + results() + " --run " + run, 2, "unknown run");
    expect("plot " + results() + " --attention --run " + run, 2, "unknown run");
    if (std::string(run) != "''") expect("translate " + results() + " --run " + run + " 1 2", 2, "unknown run");
  }
  TempDir tmp("attnlab-exit-codes");  // a results file whose runs are gone: nothing to draw, in words
  fs::copy_file(results(), tmp / "none.h5");
  REQUIRE(command_output("/usr/bin/python3 -c \"import h5py, sys; f = h5py.File(sys.argv[1], 'a'); [f['runs'].pop(k) for k in list(f['runs'])]\" " +
                         tmp / "none.h5").status == 0);
  for (const char* kind : {"--curves", "--attention", "--fit"}) expect("plot " + tmp / "none.h5" + " " + kind, 2, "holds no runs yet");
}

TEST_CASE("a results file given where a spec goes is named as what it is", "[exit-codes]") {
  expect("validate " + results(), 2, "this is an HDF5 file (attnlab's results?), not a spec: `attnlab inspect");  // was "not valid UTF-8"
  expect("run " + results() + " --output /tmp/attnlab-never-written.h5", 2, "this is an HDF5 file");
  CHECK(!fs::exists("/tmp/attnlab-never-written.h5"));
}

TEST_CASE("an error does not echo a huge value back whole", "[exit-codes]") {
  const std::string huge(100000, 'x');
  for (const std::string& args : {"validate " + tiny + " --set training.lr=" + huge, "inspect " + results() + " --run " + huge}) {
    const auto r = attnlab(args);
    CHECK(r.status == 2);
    CHECK(r.text.size() < 5000);  // was 200 KB: the value twice
    CHECK_THAT(r.text, Catch::Contains("more bytes)"));
  }
}

TEST_CASE("an option that takes one value, or a --set key, given twice is refused, not the last one taken", "[exit-codes]") {
  expect("inspect " + results() + " --run scoring-dot_seed-1 --run scoring-dot_seed-2", 2, "--run is given 2 times; it takes one value");
  expect("compare " + results() + " --format csv --format markdown", 2, "--format is given 2 times");
  expect("translate " + results() + " --run scoring-dot_seed-1 --run scoring-dot_seed-2 1 2", 2, "--run is given 2 times");
  expect("validate " + tiny + " --set training.epochs=2 --set training.epochs=3", 2, "--set training.epochs is given twice");
  expect("plot " + results() + " --attention --run scoring-dot_seed-1 --run scoring-dot_seed-2", 2,
         "--attention draws one run's maps; give one --run (got 2)");
}

TEST_CASE("a name no file can have is said so, not 'no such file'", "[exit-codes]") {
  const std::string name = std::string(300, 'x') + ".yaml";
  expect("validate " + name, 2, "no file can have this name: a part of it is 305 bytes long");
  expect("inspect /tmp/" + std::string(300, 'y') + ".h5", 1, "a part of it is 303 bytes long");
  expect("validate " + tiny + " --plugin /tmp/" + std::string(300, 'z') + ".so", 2, "a part of it is 303 bytes long");
  expect("validate missing.yaml", 2, "missing.yaml: cannot read the spec: no such file");
}

TEST_CASE("-- ends the options: what follows is positional", "[exit-codes]") {
  expect("validate -- " + tiny, 0, "valid");
  expect("validate -- --force", 2, "--force");  // a file of that name, not the flag
  expect("validate --force -- " + tiny, 2, "unknown option '--force'");
}

TEST_CASE("values another program changed in a results file: counts out of range, other types, missing objects, unterminated strings", "[exit-codes]") {
  TempDir tmp("attnlab-exit-codes");
  const auto damaged = [&](const std::string& name, const std::string& change) {
    const std::string copy = tmp / name;
    fs::copy_file(results(), copy);
    const auto edit = command_output("/usr/bin/python3 -c \"import h5py, sys; f = h5py.File(sys.argv[1], 'r+'); r = f['runs/scoring-dot_seed-1']; " +
                                     change + "\" " + copy + " 2>&1");
    INFO(edit.text);
    REQUIRE(edit.status == 0);
    return copy;
  };
  expect("inspect " + damaged("planned.h5", "f.attrs['planned_runs'] = -1"), 1,
         "attribute planned_runs of / is -1; a results file holds 0 to 16777216 there (the file is damaged)");
  expect("inspect " + damaged("epochs.h5", "r.attrs['epochs_done'] = -5"), 1, "attribute epochs_done");
  // A sentence of 10^8 steps would be decoded; it was minutes and gigabytes, then "ran out of memory".
  const std::string steps = damaged("steps.h5", "r['vocab'].attrs['num_steps'] = 10**8");
  expect("translate " + steps + " --run scoring-dot_seed-1 1 2", 1, "attribute num_steps of");
  expect("probe " + steps + " --run scoring-dot_seed-1 \"1 2\"", 1, "a results file holds 1 to 100000 there (the file is damaged)");
  // Strings as h5py writes fixed-length ones, NUL-padded without a terminator, keep their last byte.
  const std::string padded = damaged("padded.h5", "sd = lambda t: __import__('numpy').array(t, dtype=h5py.string_dtype('utf-8', len(t))); "
                                                  "r.attrs.create('status', sd(b'failed')); r.attrs.create('error', sd(b'boom'))");
  expect("inspect " + padded, 0, "scoring-dot_seed-1 failed: boom");
  // A group hard-linked into itself: walks remember what they read (inspect --run spun until the
  // read timeout; reading the parameters went round the cycle too).
  expect("inspect " + damaged("cycle.h5", "r['attention/again'] = r") + " --run scoring-dot_seed-1", 0,
         "again/  (a link to a group shown above)");
  expect("inspect " + damaged("params-cycle.h5", "r['params/again'] = r['params']") + " --run scoring-dot_seed-1", 1,
         "params/again is a second link to a group already read");
  // A link to another file, and a dataset where a map's group belongs: said in words, not HDF5's
  // ("unable to open file, file name = …", "message type not found").
  const std::string external = damaged("external.h5", "r['attention/example_9'] = h5py.ExternalLink('other.h5', '/x')");
  for (const std::string& command : {"inspect " + external, "report " + external + " -o " + tmp / "e.html"})
    expect(command, 1, "attention/example_9 is a link to another file, which attnlab's results files never hold");
  const std::string dataset = damaged("dataset.h5", "g = r['attention/example_0']; del g['cross']; g['cross'] = [1.0, 2.0]");
  for (const std::string& command : {"inspect " + dataset, "plot " + dataset + " --run scoring-dot_seed-1 --attention -o " + tmp / "d.svg"})
    expect(command, 1, "example_0/cross/weights: a dataset stands where attnlab writes a group");
  // Values of another type or missing, in words (they were HDF5's "no appropriate function for
  // conversion path" and "component not found"); ASCII strings (h5py's bytes) read as UTF-8.
  const std::string damage = "the file is damaged or was changed by another program";
  // run_order as attnlab writes it: planned_runs ids, each once (it read "2 of 4 planned" with
  // 200 000 ids listed).
  const auto order = [](const std::string& python_ids) {
    return "f.attrs['run_order'] = __import__('numpy').bytes_(chr(10).join(" + python_ids + ").encode())";
  };
  expect("inspect " + damaged("order_long.h5", order("['x%d' % i for i in range(200000)]")), 1,
         "attribute run_order of / lists 200000 runs, but planned_runs is 4 (the file is damaged)");
  expect("merge " + tmp / "never.h5 " + damaged("order_twice.h5", order("['scoring-dot_seed-1'] * 4")), 1,
         "lists the run 'scoring-dot_seed-1' twice");
  CHECK(!fs::exists(tmp / "never.h5"));
  const std::string number = damaged("number.h5", "r.attrs['status'] = 3");
  expect("inspect " + number, 1, "attribute status of /runs/scoring-dot_seed-1: it holds another type");
  expect("run " + tiny + " --set training.epochs=1 --resume --output " + number, 1, "it holds another type");  // was 2
  expect("inspect " + damaged("string.h5", "r.attrs['epochs_done'] = __import__('numpy').bytes_(b'abc')"), 1, damage);
  expect("inspect " + damaged("ascii.h5", "r.attrs['status'] = __import__('numpy').bytes_(b'bogus')"), 1, "unknown status 'bogus'");
  expect("translate " + damaged("params.h5", "del r['params']") + " --run scoring-dot_seed-1 1 2", 1, "it is missing (" + damage);
  const std::string reshaped = damaged("shape.h5", "p = 'params/decoder/embedding/weight'; del r[p]; r[p] = __import__('numpy').zeros((3, 3), 'f4')");
  expect("probe " + reshaped + " --run scoring-dot_seed-1 \"1 2\"", 1,
         "the parameter decoder.embedding.weight of run 'scoring-dot_seed-1' has shape [3, 3], where the run's model has");
}

TEST_CASE("standard output: a closed pipe does not kill a run; a full disk is an error", "[exit-codes][faults]") {
  TempDir tmp("attnlab-exit-codes");
  // `| head -1` closes the pipe after the first line: the sweep goes on and its file is whole
  REQUIRE(command_output("(timeout 120 " + attnlab_exe + " run " + tiny + " --set training.epochs=1 --output " + tmp / "p.h5" +
                         "; echo $? > " + tmp / "status" + ") | head -1 > /dev/null").status == 0);
  std::string status;
  std::ifstream(tmp / "status") >> status;
  CHECK(status == "0");  // not 141 (killed by SIGPIPE)
  const auto shown = attnlab("inspect " + tmp / "p.h5");
  CHECK_THAT(shown.text, Catch::Contains("4 of 4"));
  for (const std::string& command : std::vector<std::string>{"compare " + results(), "inspect " + results(), "validate " + tiny, "plugins", "keys"}) {
    const auto full = command_output("timeout 60 " + attnlab_exe + " " + command + " > /dev/full 2>&1; echo \"status $?\"");
    INFO(command << ": " << full.text);
    CHECK_THAT(full.text, Catch::Contains("status 1"));
  }
  const auto said = command_output("timeout 60 " + attnlab_exe + " compare " + results() + " 2>&1 > /dev/full");
  CHECK_THAT(said.text, Catch::Contains("could not write to standard output: no space left on the device"));
}

TEST_CASE("--set values are printable text", "[exit-codes][utf8]") {
  const auto r = attnlab("validate " + tiny + " --set \"$(printf 'name=evil\\033[31mRED\\nline2')\"");
  CHECK(r.status == 2);
  CHECK_THAT(r.text, Catch::Contains("a control character (U+001B) at byte 10"));
  CHECK(r.text.find('\033') == std::string::npos);  // never echoed raw
}
