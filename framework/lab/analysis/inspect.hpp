// `attnlab inspect`: what a results file holds, as text for a person.
#pragma once

#include <string>

namespace attn {

// The runs (status, epochs, wall time, metrics), the configuration differences between runs,
// and the attention maps stored.
std::string inspect_results(const std::string& path);
// One run's tree: groups, datasets with dtype and shape, attributes.
std::string inspect_run(const std::string& path, const std::string& run);

}  // namespace attn
