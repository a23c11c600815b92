// libFuzzer target: a spec through every check `attnlab validate` makes, plugins included: the
// schema and sweeps, then each sweep point's dataset, model (its scoring, cell, mode and
// normalizer options), optimizer and schedule built, under a memory limit of 64 MB per run so
// that sizes in range but absurd are refused by the memory plan instead of allocated.
// Any input must give either a valid spec or diagnostics: never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lab/builtins.hpp"
#include "lab/runner/memory_plan.hpp"
#include "lab/runner/run.hpp"
#include "lab/spec/spec.hpp"
#include "set_lines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const attn::Registries registries = [] {
    attn::Registries r;
    attn::register_builtins(r);
    return r;
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  const attn::SpecResult r = attn::read_spec_text(text, "fuzz.yaml", fuzzed_set_values(text));
  if (!r.spec || r.spec->runs.size() > 8 || !r.spec->plugins.empty()) return 0;  // outside plugins: not loaded here
  for (const attn::RunPlan& plan : r.spec->runs)  // hundreds of WAV files or 60 000 images a load: fuzz-data reads their formats
    if (plan.dataset == "spoken_digits" || plan.dataset == "fashion_mnist") return 0;
  try {
    (void)attn::validate_runs(*r.spec, registries, attn::MemoryLimit{64.0 * 1024 * 1024, "the fuzzer's 64 MB"});
  } catch (const std::exception&) {  // validate_runs reports problems as diagnostics; anything thrown is still no crash
  }
  return 0;
}
