// Outputs are claimed (lab/files/output_claim.hpp): no command writes over a file it reads,
// whatever links lead there, and two commands never write one output at once.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "attnlab/errors.hpp"
#include "lab/files/output_claim.hpp"
#include "test_support.hpp"

using attn::test::attnlab_exe;
using attn::test::command_output;
using attn::test::source_root;
using attn::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A spec that reads a corpus of its own, both in `dir`.
std::string claims_spec(const TempDir& dir, const std::string& name) {
  std::ifstream fra(source_root + "/datasets/fra-eng/fra.txt");
  std::ofstream corpus(dir / "corpus.txt");
  std::string line;
  for (int i = 0; i < 200 && std::getline(fra, line); ++i) corpus << line << "\n";
  const std::string spec = dir / (name + ".yaml");
  std::ofstream(spec) << "name: " << name << "\ndataset:\n  name: parallel_corpus\n  path: corpus.txt\n  num_train: 8\n"
                      << "model:\n  name: seq2seq\n  embed: 8\n  hidden: 8\ntraining:\n  epochs: 1\n  batch_size: 4\n";
  return spec;
}

attn::test::CommandOutput attnlab(const std::string& args) {
  return command_output("timeout 120 " + attnlab_exe + " " + args + " 2>&1");
}

// `output` names `input` directly, through a symbolic link and through a hard link: the command
// is refused with exit 2, and `input` is what it was.
void refused_for_each_link(const TempDir& dir, const std::string& command, const std::string& input, const std::string& tail,
                           const std::string& ext) {
  const std::string before = contents(input);
  const std::string symbolic = dir / ("symbolic" + ext), hard = dir / ("hard" + ext);
  fs::remove(symbolic);
  fs::remove(hard);
  fs::create_symlink(input, symbolic);
  fs::create_hard_link(input, hard);
  for (const std::string& output : {input, symbolic, hard}) {
    if (ext != ".h5" && output == input) continue;  // plot and report take only their own extensions
    const auto r = attnlab(command + " " + output + tail);
    INFO("attnlab " << command << " " << output << tail << "\n" << r.text);
    CHECK(r.status == 2);
    CHECK_THAT(r.text, Catch::Contains("which this command reads"));
    CHECK(contents(input) == before);
  }
}

}  // namespace

TEST_CASE("an output claim refuses an input through links, and a second claim while the first holds", "[outputs]") {
  TempDir dir("attnlab-claims");
  std::ofstream(dir / "in.txt") << "input";
  fs::create_symlink(dir / "in.txt", dir / "link.txt");
  CHECK(attn::output_is_input(dir / "out.h5", {{dir / "in.txt", "the corpus"}}).empty());  // not there: no input
  CHECK_THAT(attn::output_is_input(dir / "link.txt", {{dir / "in.txt", "the corpus"}}),
             Catch::Contains("is the corpus ('" + dir / "in.txt" + "', through a link)"));
  CHECK_THAT(attn::output_is_input(dir / "in.txt", {{dir / "in.txt", "the corpus"}}), Catch::Contains("is the corpus itself"));
  {
    const attn::OutputClaim first(dir / "out.h5", {});
    CHECK(fs::exists(dir / "out.h5.lock"));
    CHECK_THROWS_WITH(attn::OutputClaim(dir / "out.h5", {}),
                      Catch::Contains("is being written by another attnlab command (process " + std::to_string(getpid()) + ")"));
  }
  CHECK_FALSE(fs::exists(dir / "out.h5.lock"));  // released and removed
  std::ofstream(dir / "out.h5.lock") << "4242\n";  // left by a killed command: nobody holds it
  CHECK_NOTHROW(attn::OutputClaim(dir / "out.h5", {}));
  fs::create_symlink(dir / "in.txt", dir / "x.h5.lock");  // never followed
  CHECK_THROWS_AS(attn::OutputClaim(dir / "x.h5", {}), attn::UsageError);
  CHECK(contents(dir / "in.txt") == "input");
}

TEST_CASE("no command writes over a file it reads: directly, through a symbolic link, through a hard link", "[outputs][exit-codes]") {
  TempDir dir("attnlab-claims");
  const std::string spec = claims_spec(dir, "claims"), corpus = dir / "corpus.txt", part = dir / "part.h5";
  REQUIRE(attnlab("run " + spec + " --output " + part).status == 0);
  for (const std::string& input : {spec, corpus}) {
    refused_for_each_link(dir, "run " + spec + " --force --output", input, "", ".h5");
    refused_for_each_link(dir, "slurm " + spec + " --output", input, "", ".h5");
  }
  fs::copy_file(std::string(attn::test::paths::example_plugin_dir) + "/libattnlab-cosine.so", dir / "plug.so");
  refused_for_each_link(dir, "run " + spec + " --force --plugin " + dir / "plug.so" + " --output", dir / "plug.so", "", ".h5");
  for (const std::string& input : {part, spec}) refused_for_each_link(dir, "merge --force", input, " " + part, ".h5");
  refused_for_each_link(dir, "plot " + part + " --curves -o", part, "", ".svg");
  refused_for_each_link(dir, "report " + part + " -o", part, "", ".html");
  CHECK(attnlab("inspect " + part).status == 0);
}

TEST_CASE("two runs racing into one new output: one writes it whole, the other is refused with exit 2", "[outputs][repeated]") {
  TempDir dir("attnlab-claims");
  const std::string a = claims_spec(dir, "sweep-a"), b = claims_spec(dir, "sweep-b");
  for (int race = 0; race < 50; ++race) {
    const std::string out = dir / ("race-" + std::to_string(race) + ".h5");
    const auto both = command_output("cd " + dir.path.string() + " || exit 1; (" + attnlab_exe + " run " + a + " --output " + out +
                                     " >a.log 2>&1; echo $? >a.rc) & (" + attnlab_exe + " run " + b + " --output " + out +
                                     " >b.log 2>&1; echo $? >b.rc) & wait; cat a.rc b.rc");
    INFO("race " << race << "\n" << contents(dir / "a.log") << contents(dir / "b.log"));
    REQUIRE((both.text == "0\n2\n" || both.text == "2\n0\n"));
    const std::string winner = both.text == "0\n2\n" ? "sweep-a" : "sweep-b", loser_log = dir / (winner == "sweep-a" ? "b.log" : "a.log");
    CHECK_THAT(contents(loser_log), Catch::Contains("is being written by another attnlab command") || Catch::Contains("already exists"));
    const auto held = attnlab("inspect " + out);
    CHECK(held.status == 0);
    CHECK_THAT(held.text, Catch::Contains(winner) && !Catch::Contains(winner == "sweep-a" ? "sweep-b" : "sweep-a"));
    CHECK_THAT(held.text, Catch::Contains("finished"));
    CHECK_FALSE(fs::exists(out + ".lock"));
  }
}
