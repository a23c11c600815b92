#include "page_quotes.hpp"

#include <regex>

#include "attnlab/build_info.hpp"
#include "test_support.hpp"

namespace attn::test {

std::string arithmetic_of(const std::string& signature) {
  const std::string api = "plugin API ";
  const auto end = signature.find("; ");
  return signature.rfind(api, 0) == 0 && end != std::string::npos ? signature.substr(end + 2) : signature;
}

bool pages_arithmetic() {
  static const bool same = [] {  // (read once: every quote asks)
    std::string made_on = read_text(source_root + "/docs/transcripts-made-on.txt");
    made_on = made_on.substr(0, made_on.find('\n'));
    return arithmetic_of(made_on) == arithmetic_of(build_signature());
  }();
  return same;
}

namespace {

// A regular expression matching `quote` with its numbers, its runs of spaces and its rules free.
std::string loose_pattern(const std::string& quote) {
  static const std::regex number(R"([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)");
  const std::string any_number = R"([-+]?(?:\d+\.?\d*|\.\d+|nan|inf)(?:e[-+]?\d+)?)";
  const auto literal = [](const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == ' ') {
        while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
        out += " +";
        continue;
      }
      if (text.compare(i, 3, "---") == 0) {  // a table's rule, as wide as its columns
        while (i + 1 < text.size() && text[i + 1] == '-') ++i;
        out += "-{3,}";
        continue;
      }
      if (std::string(R"(\^$.|?*+()[]{}/)").find(text[i]) != std::string::npos) out += '\\';
      out += text[i];
    }
    return out;
  };
  std::string pattern;
  auto at = quote.cbegin();
  for (std::sregex_iterator m(quote.begin(), quote.end(), number), end; m != end; ++m) {
    pattern += literal(std::string(at, quote.cbegin() + m->position())) + any_number;
    at = quote.cbegin() + m->position() + m->length();
  }
  return pattern + literal(std::string(at, quote.cend()));
}

}  // namespace

bool quotes(const std::string& text, const std::string& quote) {
  if (text.find(quote) != std::string::npos) return true;
  if (pages_arithmetic()) return false;
  return std::regex_search(text, std::regex(loose_pattern(quote)));
}

}  // namespace attn::test
