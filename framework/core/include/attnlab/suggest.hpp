// "Did you mean ...?" for unknown names: the known name closest in edit distance.
#pragma once

#include <string>
#include <vector>

namespace attn {

// Levenshtein distance (insertions, deletions, substitutions; a swap of neighbours counts 1).
std::size_t edit_distance(const std::string& a, const std::string& b);
// The closest of `known` to `name` if it is close enough to be a plausible typo, else "".
std::string closest_name(const std::string& name, const std::vector<std::string>& known);
// "unknown <what> '<name>'; did you mean '<closest>'? known: a, b, c" (without a close name:
// "unknown <what> '<name>'; known: a, b, c")
std::string unknown_name_message(const std::string& what, const std::string& name,
                                 std::vector<std::string> known);

}  // namespace attn
