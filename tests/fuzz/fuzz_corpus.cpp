// libFuzzer target: the parallel-corpus reader (UTF-8 validation, d2l preprocessing, tabs,
// vocabulary, padding). Errors must be exceptions with a message, never crashes.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "lab/builtins.hpp"
#include "attnlab/registries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static attn::Registries registries = [] {
    attn::Registries r;
    attn::register_builtins(r);
    return r;
  }();
  static const std::string path = "/dev/shm/attnlab-fuzz-corpus-" + std::to_string(getpid()) + ".txt";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  attn::Options o;
  o.set("path", path);
  o.set("num_train", "3");
  o.set("num_valid", "1");
  o.set("num_steps", "6");
  o.set("min_freq", "1");
  try {
    auto source = registries.datasets.create("parallel_corpus", attn::DatasetArgs{o, ""});
    attn::Rng rng(0);
    (void)source->load(rng);
  } catch (const std::exception&) {
    // a clear error is the expected outcome for most inputs
  }
  return 0;
}
