// libFuzzer target: reading an HDF5 results file the way inspect, compare and report do.
// A damaged or foreign file must give an exception with a message, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "lab/analysis/inspect.hpp"
#include "lab/analysis/report.hpp"
#include "lab/results/results_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/dev/shm/attnlab-fuzz-results-" + std::to_string(getpid()) + ".h5";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    (void)attn::inspect_results(path);
    for (const std::string& id : attn::ResultsReader(path).run_ids()) (void)attn::inspect_run(path, id);
    (void)attn::summarize(attn::ResultsReader(path).runs());
    (void)attn::html_report(path);
  } catch (const std::exception&) {
  }
  return 0;
}
