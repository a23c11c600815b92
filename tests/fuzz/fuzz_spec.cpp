// libFuzzer target: spec parsing and schema validation (attn::read_spec_text).
// Any input must give either a spec or diagnostics: never a crash, hang or sanitizer report.
// (Plugin-level validation constructs models whose sizes come from the spec, so it is left to
// the unit tests; this target covers the YAML reader, the schema, sweeps and --set.)
#include <cstddef>
#include <cstdint>
#include <string>

#include "lab/spec/spec.hpp"
#include "set_lines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const attn::SpecResult r = attn::read_spec_text(text, "fuzz.yaml", fuzzed_set_values(text));
  if (r.spec)
    for (const attn::RunPlan& p : r.spec->runs) (void)p.config_yaml();
  return 0;
}
