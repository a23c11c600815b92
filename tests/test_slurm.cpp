// attnlab on a real Slurm: tests/slurm/sweep_on_slurm.sh starts a one-node cluster (munged,
// slurmctld, slurmd from Debian's slurm-wlm and munge, installed by .ci/setup), submits a sweep
// with `attnlab slurm --submit`, cancels a task mid-run, submits again (only that task, which
// resumes from its checkpoint), and compares the merged file with a one-machine run bit for
// bit; the daemons are stopped by their process ids. A cluster that cannot start is a failure
// with its reason, never a skip.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"

TEST_CASE("slurm: a sweep as a job array, cancelled, resubmitted and merged, equals one machine's file", "[slurm]") {
  attn::test::TempDir dir{"attnlab-slurm"};
  const auto out = attn::test::command_output("bash " + attn::test::source_root + "/tests/slurm/sweep_on_slurm.sh " +
                                              std::string(attn::test::paths::build_root) + " " + dir.path.string() + " 2>&1");
  INFO(out.text);
  CHECK(out.status == 0);
  CHECK_THAT(out.text, Catch::Contains("0 differences between") && Catch::Contains("slurm sweep: ok"));
}

TEST_CASE("slurm scripts hold only quoted paths and --set values: nothing of the spec reaches a shell", "[slurm-scripts]") {
  attn::test::TempDir dir{"attnlab-slurm-scripts"};
  // A spec whose name and description are shell code, and a --set value with quotes in it.
  const std::string spec = dir / "evil.yaml", pwned = dir / "PWNED";
  std::ifstream in(attn::test::source_root + "/tests/specs/good/tiny-sweep.yaml");
  std::string text(std::istreambuf_iterator<char>(in), {});
  text.replace(text.find("name: tiny-sweep"), 16, "name: \"x$(touch " + pwned + ")`touch " + pwned + "`\"");
  std::ofstream(spec) << text << "description: \"'; touch " << pwned << "; '\"\n";
  const std::string args = spec + " --runs-per-task 2 --output-dir " + dir / "s" + " --output " + dir / "merged.h5" +
                           " --set training.epochs=1 --set \"description=it's \\$(touch " + pwned + ")\"";
  const auto written = attn::test::command_output(attn::test::attnlab_exe + " slurm " + args + " 2>&1");
  INFO(written.text);
  REQUIRE(written.status == 0);
  CHECK_THAT(written.text, Catch::Contains("4 runs in 2 tasks (2 to run)"));
  std::ifstream a(dir / "s/array.sbatch");
  const std::string script(std::istreambuf_iterator<char>(a), {});
  CHECK_THAT(script, Catch::Contains("#SBATCH --job-name=attnlab-x__touch_"));  // the name, made harmless
  CHECK_THAT(script, Catch::Contains("--set 'description=it'\\''s $(touch " + pwned + ")'"));
  CHECK(script.find("'; touch") == std::string::npos);  // the spec's description is not in it
  // The task script, run as Slurm would run task 2, writes its part and touches nothing else.
  const auto task = attn::test::command_output("cd " + dir.path.string() + " && SLURM_ARRAY_TASK_ID=2 bash s/array.sbatch 2>&1");
  INFO(task.text);
  CHECK(task.status == 0);
  CHECK(std::filesystem::exists(dir / "s/part-2.h5"));
  CHECK(!std::filesystem::exists(pwned));
  // Values that cannot go on an #SBATCH line unquoted are refused, before any directory is made.
  const auto bad = attn::test::command_output(attn::test::attnlab_exe + " slurm " + spec + " --partition 'a b' --output-dir " +
                                              dir / "refused" + " 2>&1");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.text, Catch::Contains("--partition 'a b': only letters, digits"));
  CHECK(!std::filesystem::exists(dir / "refused"));
  // A job script's path that is a directory is refused before either script is rewritten, and
  // so is a merged output that is a directory.
  const std::string before = attn::test::read_text(dir / "s/array.sbatch");
  std::filesystem::remove(dir / "s/merge.sbatch");
  std::filesystem::create_directory(dir / "s/merge.sbatch");
  const auto blocked = attn::test::command_output(attn::test::attnlab_exe + " slurm " + args + " --partition gpu 2>&1");
  CHECK(blocked.status == 2);
  CHECK_THAT(blocked.text, Catch::Contains("merge.sbatch: this is a directory, not a file"));
  CHECK(attn::test::read_text(dir / "s/array.sbatch") == before);
  std::filesystem::create_directory(dir / "adir");
  const auto to_dir = attn::test::command_output(attn::test::attnlab_exe + " slurm " + spec + " --output " + dir / "adir" +
                                                 " --output-dir " + dir / "t 2>&1");
  CHECK(to_dir.status == 2);
  CHECK_THAT(to_dir.text, Catch::Contains("adir: this is a directory, not a file; move it away or choose another --output"));
  CHECK(!std::filesystem::exists(dir / "t"));
}

TEST_CASE("slurm: a '%' in the output directory is doubled on the #SBATCH --output lines, so the logs go there", "[slurm-scripts]") {
  attn::test::TempDir dir{"attnlab-slurm-percent"};
  const std::string out = dir / "runs-100%a";
  const auto written = attn::test::command_output(attn::test::attnlab_exe + " slurm " + attn::test::source_root +
                                                  "/tests/specs/good/tiny-sweep.yaml --output-dir '" + out + "' 2>&1");
  INFO(written.text);
  REQUIRE(written.status == 0);
  const std::string array = attn::test::read_text(out + "/array.sbatch"), merge = attn::test::read_text(out + "/merge.sbatch");
  CHECK_THAT(array, Catch::Contains("#SBATCH --output=" + (dir / "runs-100%%a") + "/logs/task-%a.out\n"));
  CHECK_THAT(merge, Catch::Contains("#SBATCH --output=" + (dir / "runs-100%%a") + "/logs/merge.out\n"));
}

TEST_CASE("run: SIGUSR1 (Slurm's warning before a time limit) checkpoints every run; --resume continues it", "[slurm-scripts]") {
  attn::test::TempDir dir{"attnlab-usr1"};
  const std::string out = dir / "r.h5", log = dir / "log";
  const std::string run = attn::test::attnlab_exe + " run " + attn::test::source_root +
                          "/tests/specs/good/tiny-sweep.yaml --set training.epochs=400 --threads 2 --output " + out;
  // Start the sweep, wait for its first epoch lines, send SIGUSR1, and collect the exit code.
  const auto sent = attn::test::command_output(
      "(" + run + " > " + log + " 2>&1 & pid=$!; for i in $(seq 200); do grep -q 'epoch' " + log +
      " && break; sleep 0.05; done; kill -USR1 $pid; wait $pid; echo \"exit $?\")");
  INFO(sent.text);
  CHECK_THAT(sent.text, Catch::Contains("exit 130"));
  CHECK(std::filesystem::exists(out + ".checkpoints"));
  const auto resumed = attn::test::command_output(run + " --resume 2>&1");
  INFO(resumed.text);
  CHECK(resumed.status == 0);
  CHECK_THAT(resumed.text, Catch::Contains("(continued from its checkpoint after epoch"));
}

TEST_CASE("slurm: parts made from an edited spec or other --set values are stale, named, and never counted as done", "[slurm-scripts]") {
  attn::test::TempDir dir{"attnlab-slurm-stale"};
  const std::string spec = dir / "sweep.yaml", parts = dir / "s";
  std::filesystem::copy_file(attn::test::source_root + "/tests/specs/good/tiny-sweep.yaml", spec);
  const std::string slurm = attn::test::attnlab_exe + " slurm " + spec + " --tasks 2 --output-dir " + parts + " --set training.epochs=1";
  REQUIRE(attn::test::command_output(slurm + " 2>&1").status == 0);
  const auto task = attn::test::command_output("cd " + dir.path.string() + " && SLURM_ARRAY_TASK_ID=1 bash s/array.sbatch 2>&1");
  INFO(task.text);
  REQUIRE(task.status == 0);
  CHECK_THAT(attn::test::command_output(slurm + " 2>&1").text, Catch::Contains("(1 to run: the others' parts are finished)"));
  const auto other_set = attn::test::command_output(slurm + " --set training.lr=0.5 2>&1");
  CHECK(other_set.status == 2);
  CHECK_THAT(other_set.text, Catch::Contains(parts + "/part-1.h5 is stale: its run 'scoring-additive_seed-1' was made with another configuration"));
  std::ofstream(spec, std::ios::app) << "# edited\n";
  const auto edited = attn::test::command_output(slurm + " 2>&1");
  CHECK(edited.status == 2);
  CHECK_THAT(edited.text, Catch::Contains(parts + "/part-1.h5 is stale: the spec was changed after it ran. Its runs are not this sweep's"));
}
