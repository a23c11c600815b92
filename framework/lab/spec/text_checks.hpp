// Checks of a spec's raw text before the YAML parser sees it, so that each problem is reported
// where it starts, in words: a byte that is not UTF-8, a quote or bracket never closed (at
// where it opened; the parser would report the end of the file, or take the rest of the file
// into a quoted value), nesting deeper than a spec ever needs. And the parser's own syntax
// errors said as sentences.
#pragma once

#include <optional>
#include <string>

#include "lab/spec/spec.hpp"

namespace attn {

constexpr std::size_t max_spec_nesting = 32;  // a spec is 3 or 4 levels deep

std::optional<Diagnostic> check_spec_text(const std::string& text, const std::string& path);
// yaml-cpp's message for a syntax error, as a sentence that says what to do.
std::string yaml_error_in_words(const std::string& message);

}  // namespace attn
