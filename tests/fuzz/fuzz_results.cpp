// libFuzzer target: reading an HDF5 results file the way inspect, compare and report do.
// A damaged or foreign file must give an exception with a message, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "attnlab/analysis/inspect.hpp"
#include "attnlab/analysis/report.hpp"
#include "attnlab/experiment/results_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/dev/shm/attnlab-fuzz-results-" + std::to_string(getpid()) + ".h5";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    (void)attn::inspect_results(path);
    for (const std::string& id : attn::ResultsFile::run_ids(path)) (void)attn::inspect_run(path, id);
    (void)attn::summarize(attn::ResultsFile::runs(path));
    (void)attn::html_report(path);
  } catch (const std::exception&) {
  }
  return 0;
}
