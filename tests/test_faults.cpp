// Faults, repeated: a 24-run sweep (whole, and as a shard) killed with
// SIGKILL at 20 random moments, resumed after each, ends bit-identical to an uninterrupted
// sweep; a merge killed at random moments leaves either nothing or the whole file; and on a
// nearly full file system (a small tmpfs this test mounts) run, shard and merge refuse with
// "no space left", leave the previous results file as it was and no partial file.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <random>
#include <thread>

#include "test_support.hpp"

extern char** environ;
using attn::test::attnlab_exe;
using attn::test::command_output;
using attn::test::source_root;
using attn::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string spec = source_root + "/tests/specs/good/six-runs.yaml";
// 24 runs of about 0.4 s (10 s on one thread, which the killed sweeps use); checkpoints every 20 ms so that a kill lands mid-run too.
const std::string sweep_24 = "--set 'sweep.seed=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24]' "
                             "--set training.epochs=30 --checkpoint-every 0.02";

attn::test::CommandOutput attnlab(const std::string& args) { return command_output(attnlab_exe + " " + args + " 2>&1"); }

std::string same_results(const std::string& a, const std::string& b) {
  const auto r = command_output("/usr/bin/python3 " + source_root + "/tests/tools/compare_results.py " + a + " " + b + " 2>&1");
  return r.status == 0 ? "" : r.text.empty() ? "compare_results.py failed" : r.text;
}

// Waits (up to 10 s) until no process holds OUTPUT's claim (output_claim.hpp). The commands
// that read results files work in a child process, which ends a moment after the command is
// killed: run again at once, the command could say that another attnlab writes the output.
void wait_for_release(const std::string& output) {
  const int fd = open((output + ".lock").c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  int tries = 0;
  for (; tries < 2000 && flock(fd, LOCK_EX | LOCK_NB) != 0; ++tries) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (tries == 2000) FAIL_CHECK(output << ": its claim is still held 10 s after the command was killed");
  close(fd);
}

// Runs `attnlab ARGS` (split by sh), which writes OUTPUT, and SIGKILLs it after `seconds`; true
// if it was killed (false: it ended first).
bool killed_after(const std::string& args, const std::string& output, double seconds) {
  const std::string command = "exec " + attnlab_exe + " " + args + " >/dev/null 2>&1";
  const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) == 0);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (std::chrono::steady_clock::now() < end)
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    else std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  wait_for_release(output);
  return WIFSIGNALED(status);
}

// Kills `attnlab run ARGS --output OUT` at `kills` random moments (a fixed seed, so a failure
// repeats), each time resuming what the last one left; then lets it finish.
void kill_and_resume(const std::string& args, const std::string& out, int kills, unsigned seed, double latest) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> moment(0.05, latest);
  int done = 0;
  for (int attempt = 0; attempt < kills; ++attempt) {
    const double at = moment(random);
    const bool resume = fs::exists(out);  // killed before the file was in place: nothing to resume
    INFO("kill " << attempt + 1 << " after " << at << " s" << (resume ? " (resuming)" : ""));
    done += killed_after("run " + spec + " " + args + " --output " + out + (resume ? " --resume" : ""), out, at);
    REQUIRE_FALSE(fs::exists(out + ".creating-"));  // (never a partial file under the output's name)
  }
  CHECK(done >= kills / 2);  // most kills landed before the sweep ended
  const auto last = attnlab("run " + spec + " " + args + " --output " + out + (fs::exists(out) ? " --resume" : ""));
  INFO(last.text);
  REQUIRE(last.status == 0);
}

// Files in `dir` other than `keep`.
std::vector<std::string> other_files(const std::string& dir, const std::vector<std::string>& keep) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (std::find(keep.begin(), keep.end(), e.path().filename().string()) == keep.end()) out.push_back(e.path().string());
  return out;
}

// A tmpfs of `kb` KB mounted on a fresh directory, unmounted at the end of the scope.
struct SmallFileSystem {
  TempDir dir{"attnlab-fullfs"};
  explicit SmallFileSystem(int kb) {
    const std::string size = "size=" + std::to_string(kb) + "k";
    if (mount("tmpfs", dir.path.c_str(), "tmpfs", 0, size.c_str()) != 0)
      FAIL("cannot mount a tmpfs on " << dir.path << " (" << std::strerror(errno) << "): the test needs root (CAP_SYS_ADMIN)");
  }
  ~SmallFileSystem() { umount(dir.path.c_str()); }
  // Fills the file system to leave about `kb` KB free.
  void fill_leaving(int kb) {
    std::ofstream filler(dir / "filler", std::ios::binary | std::ios::app);
    const std::string block(1024, '\0');
    while (true) {
      const auto free = fs::space(dir.path).available;
      if (free <= static_cast<std::uintmax_t>(kb) * 1024 + 4096) break;
      filler.write(block.data(), static_cast<std::streamsize>(block.size()));
      filler.flush();
      if (!filler) break;
    }
  }
};

}  // namespace

TEST_CASE("a 24-run sweep killed with SIGKILL at 20 random moments, resumed after each, ends bit-identical",
          "[reliability][faults][repeated]") {
  TempDir tmp("attnlab-faults");
  REQUIRE(attnlab("run " + spec + " " + sweep_24 + " --threads 2 --output " + tmp / "whole.h5").status == 0);
  kill_and_resume(sweep_24 + " --threads 1", tmp / "killed.h5", 20, 17, 0.6);
  CHECK(same_results(tmp / "whole.h5", tmp / "killed.h5") == "");
  CHECK_FALSE(fs::exists(tmp / "killed.h5.checkpoints"));  // every run written, every checkpoint gone
  CHECK(other_files(tmp.path.string(), {"whole.h5", "killed.h5"}) == std::vector<std::string>{});
}

TEST_CASE("a shard killed with SIGKILL at 20 random moments, resumed after each, merges into the uninterrupted file",
          "[reliability][faults][repeated][merge]") {
  TempDir tmp("attnlab-faults");
  REQUIRE(attnlab("run " + spec + " " + sweep_24 + " --threads 2 --output " + tmp / "whole.h5").status == 0);
  kill_and_resume(sweep_24 + " --threads 1 --shard 1/2", tmp / "p1.h5", 20, 29, 0.35);
  REQUIRE(attnlab("run " + spec + " " + sweep_24 + " --threads 2 --shard 2/2 --output " + tmp / "p2.h5").status == 0);
  // the merge, killed at random moments too: the output is either not there or whole
  std::mt19937 random(41);
  std::uniform_real_distribution<double> moment(0.005, 0.3);
  const std::string merge = "merge " + tmp / "merged.h5" + " " + tmp / "p1.h5" + " " + tmp / "p2.h5" + " --force";
  for (int attempt = 0; attempt < 20; ++attempt) {
    killed_after(merge, tmp / "merged.h5", moment(random));
    if (fs::exists(tmp / "merged.h5")) CHECK(same_results(tmp / "whole.h5", tmp / "merged.h5") == "");
  }
  REQUIRE(attnlab(merge).status == 0);
  CHECK(same_results(tmp / "whole.h5", tmp / "merged.h5") == "");
  // a killed merge's temporary file (named for its pid) is removed by the next one
  CHECK(other_files(tmp.path.string(), {"whole.h5", "p1.h5", "p2.h5", "merged.h5"}) == std::vector<std::string>{});
}

TEST_CASE("a nearly full file system: run, shard and merge say 'no space left', keep the previous file, leave nothing partial",
          "[reliability][faults]") {
  TempDir tmp("attnlab-faults");
  const std::string small_sweep = "--set training.epochs=1 --threads 2";
  for (int k = 1; k <= 2; ++k)
    REQUIRE(attnlab("run " + spec + " " + small_sweep + " --shard " + std::to_string(k) + "/2 --output " + tmp / ("p" + std::to_string(k) + ".h5")).status == 0);
  SmallFileSystem small(1024);
  const std::string out = small.dir / "out.h5", merged = small.dir / "merged.h5";
  REQUIRE(attnlab("run " + spec + " " + small_sweep + " --output " + out).status == 0);
  REQUIRE(attnlab("merge " + merged + " " + tmp / "p1.h5" + " " + tmp / "p2.h5").status == 0);
  fs::copy_file(out, tmp / "out-before.h5");
  fs::copy_file(merged, tmp / "merged-before.h5");
  small.fill_leaving(16);

  const std::vector<std::pair<std::string, std::string>> attempts = {
      {"run " + spec + " " + small_sweep + " --force --output " + out, "no space left for the results"},
      {"run " + spec + " " + small_sweep + " --shard 1/2 --force --output " + out, "no space left for the results"},
      {"run " + spec + " " + small_sweep + " --output " + small.dir / "new.h5", "no space left for the results"},
      {"merge " + merged + " " + tmp / "p1.h5" + " " + tmp / "p2.h5" + " --force", "no space left for the merged file"},
      {"merge " + small.dir / "new.h5" + " " + tmp / "p1.h5" + " " + tmp / "p2.h5", "no space left for the merged file"}};
  for (const auto& [command, says] : attempts) {
    const auto r = attnlab(command);
    INFO(command << "\n" << r.text);
    CHECK(r.status == 2);
    CHECK_THAT(r.text, Catch::Contains(says) && Catch::Contains("free some space"));
    CHECK(same_results(tmp / "out-before.h5", out) == "");
    CHECK(same_results(tmp / "merged-before.h5", merged) == "");
    CHECK(other_files(small.dir.path.string(), {"out.h5", "merged.h5", "filler"}) == std::vector<std::string>{});
  }
}
