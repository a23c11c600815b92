// libFuzzer target: `attnlab merge` of a damaged or foreign part with a good one. The input is
// the first part's bytes; the second is a fixed good part (tests/fuzz/fixtures/part-2-of-2.h5,
// the shard 2/2 of tests/specs/good/tiny-sweep.yaml). Any input must give a merged file or an
// error with a message, never a crash, and never leave the output or a temporary file behind
// when it fails.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "lab/results/merge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string dir = "/dev/shm/attnlab-fuzz-merge-" + std::to_string(getpid());
  static const bool made = std::filesystem::create_directories(dir);
  (void)made;
  const std::string part = dir + "/part-1.h5", out = dir + "/merged.h5";
  std::ofstream(part, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  std::remove(out.c_str());
  try {
    attn::MergeOptions options;
    options.allow_missing = true;
    (void)attn::merge_results(out, {part, ATTNLAB_FUZZ_FIXTURES "/part-2-of-2.h5"}, options);
  } catch (const std::exception&) {
    if (std::filesystem::exists(out)) __builtin_trap();  // a refused merge writes nothing
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir))  // nothing half-written left
    if (entry.path().filename() != "part-1.h5" && entry.path().filename() != "merged.h5") __builtin_trap();
  return 0;
}
