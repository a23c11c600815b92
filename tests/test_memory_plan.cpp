// Runs too big for their memory are refused before anything big is allocated, at the spec key
// responsible: the corpus tests/specs/too_big/ (each spec says where its
// error must be and what it must say), --max-memory, and the default limit.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "attnlab/footprint.hpp"
#include "lab/runner/memory_plan.hpp"
#include "lab/runner/runner.hpp"
#include "test_support.hpp"

using namespace attn;
namespace fs = std::filesystem;
using attn::test::attnlab_exe;
using attn::test::source_root;

namespace {

std::string spec(const std::string& name) { return source_root + "/tests/specs/" + name; }

RunnerOptions limited_to(const std::string& size) {
  RunnerOptions o;
  o.max_memory = parse_memory_size(size);
  return o;
}

// The exit status of `command` (run by sh) and its peak resident memory in KB. A small Python
// parent runs it: a child forked from this (large) test program would count the pages it
// shares with it until it execs.
std::pair<int, long> run_measured(const std::string& command) {
  const auto r = attn::test::command_output(
      "python3 -c 'import resource, subprocess, sys; s = subprocess.call(sys.argv[1], shell=True); "
      "print(s, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \"" + command + "\"");
  int status = -1;
  long peak = -1;
  std::istringstream(r.text) >> status >> peak;
  return {status, peak};
}

}  // namespace

TEST_CASE("memory sizes read and print as a person writes them", "[memory]") {
  CHECK(*parse_memory_size("4G") == 4.0 * (1 << 30));
  CHECK(*parse_memory_size("512M") == 512.0 * (1 << 20));
  CHECK(*parse_memory_size("1.5GB") == 1.5 * (1 << 30));
  CHECK(*parse_memory_size("2k") == 2048.0);
  CHECK(*parse_memory_size("100000") == 100000.0);
  for (const char* bad : {"", "G", "4Q", "-1G", "0", "nan", "inf", "4GiB", "0x10", "1e400", "4 G"}) {
    INFO(bad);
    CHECK_FALSE(parse_memory_size(bad));
  }
  CHECK(memory_text(512) == "512 B");
  CHECK(memory_text(1536) == "1.5 KB");
  CHECK(memory_text(4.0 * (1 << 30)) == "4.0 GB");
  CHECK(memory_text(8e12) == "7.3 TB");
}

TEST_CASE("every too-big spec is refused at the key responsible, saying what takes the memory", "[memory][specs]") {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(source_root + "/tests/specs/too_big")) {
    const std::string path = entry.path().string();
    std::string at, says;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("# expect-at: ", 0) == 0) at = path + line.substr(13) + ": ";
      if (line.rfind("# expect-says: ", 0) == 0) says = line.substr(15);
    }
    INFO(path);
    REQUIRE_FALSE(at.empty());
    const auto diags = check_spec(path, limited_to("4G"));
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].str().rfind(at, 0) == 0);
    CHECK_THAT(diags[0].message, Catch::Contains(says) && Catch::Contains("--max-memory 4.0 GB") &&
                                     Catch::Contains("raise the limit with --max-memory"));
    ++count;
  }
  CHECK(count >= 6);
}

TEST_CASE("the limit is what decides: a small one refuses an ordinary spec, a large one accepts the too-big ones' sizes",
          "[memory][specs]") {
  const std::string tiny = spec("good/tiny-sweep.yaml");
  CHECK(check_spec(tiny, {}).empty());  // the default: the memory available divided by the runs at once
  CHECK(check_spec(tiny, limited_to("1G")).empty());
  const auto refused = check_spec(tiny, limited_to("200K"));
  REQUIRE_FALSE(refused.empty());
  CHECK_THAT(refused[0].message, Catch::Contains("this run needs about") && Catch::Contains("--max-memory 200 KB"));
  // the beam search of long_beam_search.yaml needs about 17 GB: 64 GB lets it through
  CHECK(check_spec(spec("too_big/long_beam_search.yaml"), limited_to("64G")).empty());
}

// What a refused run may peak at: 20 MB measured in a release build; AddressSanitizer's shadow
// memory and quarantine add about 200 MB (232 MB measured in CI's sanitized build).
#if defined(__SANITIZE_ADDRESS__)
constexpr long peak_bound_kb = 1024 * 1024;
#else
constexpr long peak_bound_kb = 200 * 1024;
#endif

TEST_CASE("a too-big run exits 2 in a second, small, writing nothing; --max-memory is checked", "[memory][runner]") {
  attn::test::TempDir tmp("attnlab-memory");
  const std::string out = tmp / "out.h5";
  const auto [status, peak_kb] = run_measured(attnlab_exe + " run " + spec("too_big/ten_million_long_examples.yaml") +
                                              " --output " + out + " 2>/dev/null");
  CHECK(status == 2);
  CHECK_FALSE(fs::exists(out));
  CHECK(peak_kb < peak_bound_kb);  // nothing near the 149 GB the spec asks for
  const auto wide = attn::test::command_output(attnlab_exe + " validate " + spec("too_big/sixty_four_wide_layers.yaml") + " 2>&1");
  CHECK(wide.status == 2);
  CHECK_THAT(wide.text, Catch::Contains("sixty_four_wide_layers.yaml:8:12: ") && Catch::Contains("the memory available now"));
  for (const char* bad : {"lots", "0", "-2G", "4Q"}) {
    const auto r = attn::test::command_output(attnlab_exe + " validate " + spec("good/tiny-sweep.yaml") + " --max-memory " + bad + " 2>&1");
    INFO(bad);
    CHECK(r.status == 2);
    CHECK_THAT(r.text, Catch::Contains("--max-memory takes the memory one run may use"));
  }
}
