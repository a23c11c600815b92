// A sweep in parts: `attnlab run --shard K/N` writes the K-th part, `attnlab merge` joins the
// parts into the file one machine writes (tests/tools/compare_results.py compares them object by
// object, bit for bit, leaving out timings and hosts); and every refusal leaves nothing behind.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"

using attn::test::attnlab_exe;
using attn::test::command_output;
using attn::test::source_root;
namespace fs = std::filesystem;

namespace {

const std::string spec = source_root + "/tests/specs/good/tiny-sweep.yaml";  // 4 runs

attn::test::CommandOutput attnlab(const std::string& args) { return command_output(attnlab_exe + " " + args + " 2>&1"); }

attn::test::CommandOutput same_results(const std::string& a, const std::string& b) {
  return command_output("/usr/bin/python3 " + source_root + "/tests/tools/compare_results.py " + a + " " + b + " 2>&1");
}

// The whole sweep on one machine and in three parts (one run, one run, two runs), with a --set.
struct Parts {
  attn::test::TempDir dir{"attnlab-merge"};
  std::string whole = dir / "whole.h5", part[3] = {dir / "p1.h5", dir / "p2.h5", dir / "p3.h5"};
  Parts() {
    REQUIRE(attnlab("run " + spec + " --set training.epochs=2 --threads 2 --output " + whole).status == 0);
    for (int k = 0; k < 3; ++k) {
      const auto r = attnlab("run " + spec + " --set training.epochs=2 --threads 1 --shard " + std::to_string(k + 1) + "/3 --output " + part[k]);
      INFO(r.text);
      REQUIRE(r.status == 0);
    }
  }
  std::string all() const { return part[0] + " " + part[1] + " " + part[2]; }
};

}  // namespace

TEST_CASE("merge: the parts of --shard K/N make the file one machine writes, bit for bit", "[merge]") {
  Parts p;
  CHECK_THAT(attnlab("run " + spec + " --shard 3/3 --output " + p.dir / "again.h5").text,
             Catch::Contains("2 runs (shard 3/3 of 4)"));  // runs [4*2/3, 4) = the last two
  const std::string out = p.dir / "merged.h5";
  const auto merged = attnlab("merge " + out + " " + p.all());
  INFO(merged.text);
  REQUIRE(merged.status == 0);
  CHECK_THAT(merged.text, Catch::Contains("merged 4 of 4 runs from 3 parts"));
  const auto same = same_results(p.whole, out);
  INFO(same.text);
  CHECK(same.status == 0);
  // The comparison sees a difference when there is one: a part alone is not the whole.
  CHECK(same_results(p.whole, p.part[2]).status == 1);
  CHECK(attnlab("compare " + out).status == 0);
  // A part whose output is named by --set output= is a part of the same sweep: where a part is
  // written cannot change its results.
  const std::string named = p.dir / "named.h5", from_named = p.dir / "merged-named.h5";
  REQUIRE(attnlab("run " + spec + " --set training.epochs=2 --threads 1 --shard 3/3 --set output=" + named).status == 0);
  const auto with_named = attnlab("merge " + from_named + " " + p.part[0] + " " + p.part[1] + " " + named);
  INFO(with_named.text);
  CHECK(with_named.status == 0);
  CHECK(same_results(p.whole, from_named).status == 0);
}

TEST_CASE("merge refuses parts that do not make one sweep, each in one line, writing nothing", "[merge]") {
  Parts p;
  const std::string out = p.dir / "out.h5";
  const auto refused = [&](const std::string& parts, const std::string& reason, int code = 2) {
    const auto r = attnlab("merge " + out + " " + parts);
    INFO(r.text);
    CHECK(r.status == code);
    CHECK_THAT(r.text, Catch::Contains(reason));
    if (code == 2) {  // the reason, then the synopsis and where the options are described: not the whole usage text
      CHECK_THAT(r.text, Catch::EndsWith("usage: attnlab merge OUT.h5 PART.h5... [--allow-missing] [--force]  "
                                         "(attnlab merge --help for the options)\n"));
      CHECK(std::count(r.text.begin(), r.text.end(), '\n') == 2);
    }
    CHECK(!fs::exists(out));
    for (const auto& f : fs::directory_iterator(p.dir.path)) CHECK(f.path().string().find(".merging-") == std::string::npos);
  };
  refused(p.part[0] + " " + p.part[1], "2 of the sweep's 4 runs are in no part: scoring-dot_seed-1, scoring-dot_seed-2");
  const std::string copy = p.dir / "copy.h5";
  fs::copy_file(p.part[1], copy);
  refused(p.all() + " " + copy, "run 'scoring-additive_seed-2' is in two parts");
  refused(p.all() + " " + p.part[1], p.part[1] + " is given twice; give each part once");  // was "in two parts"
  const std::string& first = p.part[0];
  const std::string dotted = (p.dir.path / "." / fs::path(first).filename()).string();
  refused(p.all() + " " + dotted, dotted + " is given twice (also as " + first + ")");
  // Another spec: the same sweep with another name.
  const std::string other_spec = p.dir / "other.yaml", other = p.dir / "other.h5";
  std::ifstream in(spec);
  std::ofstream(other_spec) << std::string(std::istreambuf_iterator<char>(in), {}) << "description: another\n";
  REQUIRE(attnlab("run " + other_spec + " --set training.epochs=2 --shard 3/3 --output " + other).status == 0);
  refused(p.part[0] + " " + p.part[1] + " " + other, "is a part of another sweep than " + p.part[0] + ": its spec text differs");
  // Another --set.
  const std::string lr = p.dir / "lr.h5";
  REQUIRE(attnlab("run " + spec + " --set training.epochs=2 --set training.lr=0.02 --shard 3/3 --output " + lr).status == 0);
  refused(p.part[0] + " " + p.part[1] + " " + lr, "was run with other --set values");
  // A damaged part: its second half cut off.
  const std::string cut = p.dir / "cut.h5";
  fs::copy_file(p.part[2], cut);
  fs::resize_file(cut, fs::file_size(cut) / 2);
  const auto damaged = attnlab("merge " + out + " " + p.part[0] + " " + p.part[1] + " " + cut);
  INFO(damaged.text);
  CHECK((damaged.status == 1 || damaged.status == 2));
  CHECK_THAT(damaged.text, Catch::Contains("cut.h5"));
  CHECK(!fs::exists(out));
  refused(p.all() + " " + p.dir / "nothing.h5", "nothing.h5", 1);  // cannot be read: exit code 1
  // --allow-missing merges what there is; an existing output needs --force.
  CHECK(attnlab("merge " + out + " " + p.part[0] + " --allow-missing").status == 0);
  CHECK_THAT(attnlab("merge " + out + " " + p.all()).text, Catch::Contains("already exists; use --force"));
  CHECK(attnlab("merge " + out + " " + p.all() + " --force").status == 0);
  CHECK(same_results(p.whole, out).status == 0);
  // Temporary copies: a refused merge removes none. A merge holds the output's claim, which every
  // writer of the output holds, so it removes every copy killed writers left: a merge's partial
  // file's own copies, and one named for a process that still runs (this test's pid stands for a
  // killed command's child that lingers). Names that only look alike are the user's.
  const std::string pid = std::to_string(getpid());
  const std::vector<std::string> copies = {out + ".writing-999999999", out + ".merging-" + pid,
                                           out + ".merging-" + pid + ".creating-" + pid, out + ".merging-7.writing-7"};
  const std::vector<std::string> users = {out + ".writing-backup", out + ".merging-", out + ".creating-12.old", out + "x.writing-1"};
  for (const std::string& f : copies) std::ofstream(f) << "a killed writer's copy";
  for (const std::string& f : users) std::ofstream(f) << "the user's";
  CHECK(attnlab("merge " + out + " " + p.part[0] + " --force").status == 2);
  for (const std::string& f : copies) CHECK(fs::exists(f));
  {  // a live writer holds the claim: the merge is refused and takes nothing of it
    const int lock = open((out + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(flock(lock, LOCK_EX | LOCK_NB) == 0);
    const auto busy = attnlab("merge " + out + " " + p.all() + " --force");
    CHECK(busy.status == 2);
    CHECK_THAT(busy.text, Catch::Contains("is being written by another attnlab command"));
    for (const std::string& f : copies) CHECK(fs::exists(f));
    unlink((out + ".lock").c_str());
    close(lock);
  }
  CHECK(attnlab("merge " + out + " " + p.all() + " --force").status == 0);
  for (const std::string& f : copies) CHECK_FALSE(fs::exists(f));
  for (const std::string& f : users) CHECK(fs::exists(f));
}

TEST_CASE("run --shard: bad K/N, more shards than runs, and resuming another shard are refused", "[merge]") {
  attn::test::TempDir dir{"attnlab-shard"};
  for (const char* bad : {"0/2", "3/2", "2", "a/b", "1/0", "-1/2"}) {
    const auto r = attnlab("run " + spec + " --shard " + bad + " --output " + dir / "s.h5");
    INFO(bad << ": " << r.text);
    CHECK(r.status == 2);
    CHECK_THAT(r.text, Catch::Contains("--shard takes K/N"));
  }
  for (const char* many_parts : {"1/5", "5/5", "2/7"}) {  // every K alike, whether its own part has runs or not
    const auto many = attnlab("run " + spec + " --shard " + many_parts + " --output " + dir / "s.h5");
    INFO(many_parts << ": " << many.text);
    CHECK(many.status == 2);
    CHECK_THAT(many.text, Catch::Contains("the sweep has 4 runs, so it splits into at most 4 shards"));
    CHECK(!fs::exists(dir / "s.h5"));
  }
  REQUIRE(attnlab("run " + spec + " --set training.epochs=1 --shard 1/2 --output " + dir / "s.h5").status == 0);
  const std::string dead = dir / "s.h5.writing-999999999";  // a killed writer's copy (no process has that pid)
  std::ofstream(dead) << "left by a kill";
  const auto other = attnlab("run " + spec + " --set training.epochs=1 --shard 2/2 --resume --output " + dir / "s.h5");
  CHECK(other.status == 2);
  CHECK_THAT(other.text, Catch::Contains("holds shard 1/2, not shard 2/2"));
  CHECK(fs::exists(dead));  // a refused resume changes nothing
  // Another sweep through --set would add runs the file's run_order does not list.
  const auto wider = attnlab("run " + spec + " --set training.epochs=1 --set sweep.seed=[1,2,3] --shard 1/2 --resume --output " +
                             dir / "s.h5");
  CHECK(wider.status == 2);
  CHECK_THAT(wider.text, Catch::Contains("holds another sweep (4 runs; this spec and --set plan 6): resume with the same --set sweep.*"));
  CHECK(fs::exists(dead));
  CHECK(attnlab("run " + spec + " --set training.epochs=1 --shard 1/2 --resume --output " + dir / "s.h5").status == 0);
  CHECK(!fs::exists(dead));
}
