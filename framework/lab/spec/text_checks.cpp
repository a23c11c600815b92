#include "lab/spec/text_checks.hpp"

#include "attnlab/data/text.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace attn {
namespace {

// "path:line:col" of byte `offset` of `text` (1-based; columns in bytes).
std::string position(const std::string& path, const std::string& text, std::size_t offset) {
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
  const std::size_t start = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  return path + ":" + std::to_string(line) + ":" + std::to_string(offset - (start == std::string::npos ? 0 : start + 1) + 1);
}

// Whether the line starting at `start` reads as a key ("  name: ..." or "- name: ..."): a quoted
// value that runs into such a line was not closed where its line ended.
bool looks_like_key(const std::string& text, std::size_t start) {
  std::size_t i = text.find_first_not_of(" -", start);
  if (i == std::string::npos || !(std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_')) return false;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '.')) ++i;
  return i + 1 < text.size() && text[i] == ':' && (text[i + 1] == ' ' || text[i + 1] == '\n');
}

// Where a quoted value ends (the offset of its closing quote), or npos when it never does
// (the file ends, or the next lines read as keys: a quote left open on its line).
std::size_t closing_quote(const std::string& text, std::size_t open) {
  const char q = text[open];
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\n' && looks_like_key(text, i + 1)) return std::string::npos;
    if (q == '"' && text[i] == '\\') ++i;
    else if (q == '\'' && text[i] == '\'' && i + 1 < text.size() && text[i + 1] == '\'') ++i;
    else if (text[i] == q) return i;
  }
  return std::string::npos;
}

struct Scan {
  std::size_t at = std::string::npos;  // where the problem starts
  std::string what;
};

// Whether the line starting at `start` ends a key with a block scalar indicator (| or >, with
// optional chomping and indentation digits): the lines after it that are indented more are text.
bool opens_block_scalar(const std::string& text, std::size_t start, std::size_t end) {
  std::string line = text.substr(start, end - start);
  const std::size_t comment = line.find(" #");
  line = line.substr(0, comment == std::string::npos ? line.size() : comment);
  line.erase(line.find_last_not_of(" \t") + 1);
  const std::size_t indicator = line.find_last_of("|>");
  return indicator != std::string::npos && indicator > 0 && line.find_first_not_of("+-0123456789", indicator + 1) == std::string::npos &&
         (line[indicator - 1] == ' ' || line[indicator - 1] == ':');
}

// Whether a plain (unquoted) scalar ends at `i` (inside it quotes and brackets are text): at
// ': ' or ':' ending the line, and inside [ ] or { } also at ',', ']' and '}'.
bool ends_plain(const std::string& text, std::size_t i, bool in_flow) {
  const char c = text[i];
  if (c == ':') return i + 1 == text.size() || std::string(" \t\r\n").find(text[i + 1]) != std::string::npos;
  return in_flow && (c == ',' || c == ']' || c == '}');
}

constexpr const char* stray_comma =
    "a ',' outside a [list] or {mapping}: commas separate items only inside [ ] or { }; remove it, or quote the value";

// Brackets and quotes outside comments, plain scalars and block scalars: the first quote never
// closed, the innermost bracket never closed, a ',' outside them, or where nesting passes
// max_spec_nesting.
Scan scan_delimiters(const std::string& text) {
  std::vector<std::size_t> open;  // offsets of '[' and '{' not yet closed
  std::size_t block_indent = std::string::npos;  // inside a block scalar: the indentation of its key
  bool plain = false;  // inside a plain scalar (`n 'x` is text, not the start of a quoted value)
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char before = i == 0 ? '\n' : text[i - 1];
    if (before == '\n') {  // a new line: inside a block scalar, or opening one?
      plain = false;
      const std::size_t end = std::min(text.find('\n', i), text.size()), indent = text.find_first_not_of(' ', i) - i;
      const bool blank = text.find_first_not_of(" \t", i) >= end;
      if (block_indent != std::string::npos && (blank || indent > block_indent)) {
        i = end;
        continue;
      }
      block_indent = opens_block_scalar(text, i, end) ? indent : std::string::npos;
    }
    const bool starts_token = std::string(" \t\n[{,:-?").find(before) != std::string::npos;
    if (c == '#' && (before == ' ' || before == '\t' || before == '\n')) {
      i = std::min(text.find('\n', i), text.size()) - 1;
      continue;
    }
    if (plain && !ends_plain(text, i, !open.empty())) continue;
    plain = false;
    if ((c == '"' || c == '\'') && starts_token) {
      const std::size_t end = closing_quote(text, i);
      if (end == std::string::npos) return {i, std::string("this ") + c + " opens a quoted value that is never closed"};
      i = end;
    } else if (c == ',' && open.empty()) {
      // outside [ ] and { } a ',' that is not inside a plain scalar (after a space, a quoted
      // value, a tag or an anchor) belongs to no value, and yaml-cpp 0.7 loops forever on a
      // document that holds one
      return {i, stray_comma};
    } else if ((c == '!' || c == '&' || c == '*') && starts_token) {  // a tag, anchor or alias: its name (':' included) ends at a space or a flow indicator
      while (i + 1 < text.size() && std::string(" \t\r\n,[]{}").find(text[i + 1]) == std::string::npos) ++i;
    } else if (c == '[' || c == '{') {
      open.push_back(i);
      if (open.size() > max_spec_nesting)
        return {i, "lists and mappings nested deeper than " + std::to_string(max_spec_nesting) + " levels: a spec needs 3 or 4"};
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    } else if (starts_token && std::string(" \t\r\n-?:,[]{}#&*!|>'\"%@`").find(c) == std::string::npos) {
      plain = true;
    }
  }
  if (!open.empty())
    return {open.back(), std::string("this '") + text[open.back()] + "' is never closed with '" + (text[open.back()] == '[' ? "]" : "}") + "'"};
  return {};
}

// The first line indented with a tab (YAML indents with spaces only; yaml-cpp then speaks of a
// ':' where no key can start), or past what max_spec_nesting levels of 2 spaces could need.
Scan scan_indentation(const std::string& text) {
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (const std::size_t lead = text.find_first_not_of(" \t", start); lead < end && text.find('\t', start) < lead)
      return {text.find('\t', start), "a tab in the indentation: YAML indents with spaces only; replace the tab by spaces"};
    const std::size_t indent = text.find_first_not_of(' ', start) - start;
    if (indent > 8 * max_spec_nesting && text.find_first_not_of(' ', start) < end)
      return {start, "keys nested deeper than " + std::to_string(max_spec_nesting) + " levels (indented " +
                         std::to_string(indent) + " columns): a spec needs 3 or 4"};
    start = end + 1;
  }
  return {};
}

}  // namespace

std::optional<Diagnostic> check_spec_text(const std::string& text, const std::string& path) {
  if (const auto bad = invalid_utf8_at(text))
    return Diagnostic{position(path, text, *bad),
                      "the spec is not valid UTF-8 here (a byte of another encoding, e.g. Latin-1?); save it as UTF-8"};
  if (const auto bad = control_character_at(text, "\t\n\r"))
    return Diagnostic{position(path, text, *bad), "a control character (" + code_point_name(text[*bad]) +
                                                      ") here: a spec holds text only; remove it (a file of another kind given as the spec?)"};
  if (const std::size_t cr = text.find('\r'); cr != std::string::npos && (cr + 1 == text.size() || text[cr + 1] != '\n'))
    return Diagnostic{position(path, text, cr), "a line ends with a carriage return alone (old Mac line endings): save the "
                                                "spec with LF (or CRLF) line endings"};
  for (const Scan& s : {scan_delimiters(text), scan_indentation(text)})
    if (s.at != std::string::npos) return Diagnostic{position(path, text, s.at), s.what};
  return std::nullopt;
}

std::string yaml_error_in_words(const std::string& message) {
  static const std::vector<std::pair<std::string, std::string>> words = {
      {"illegal map value", "a ':' where no key can start: put a nested key on its own line under its parent, or quote a value "
                            "that holds ': '"},
      {"end of map not found", "this line's indentation does not match the keys above it (keys of one mapping start in the "
                               "same column; use spaces, not tabs)"},
      {"illegal flow end", "a ']' or '}' that closes nothing"},
      {"end of sequence flow not found", "a '[' list is not closed with ']'"},
      {"end of map flow not found", "a '{' mapping is not closed with '}'"},
      {"unknown escape character", "an unknown escape (\\) in a double-quoted value: write \\\\ for a backslash, or use single quotes"},
      {"bad file", "the YAML cannot be read from here"},
      {"invalid unicode", "a \\u or \\U escape that is not a character (a surrogate, or beyond U+10FFFF): write the character itself"},
      {"the referenced anchor is not defined", "an alias (*name) of an anchor (&name) that is not defined above it"},
      {"end of verbatim tag not found", "a tag '!<...' that is not closed with '>'"},
      {"found character that cannot start any token", "a character no YAML value can start with here (a tab? indent with spaces; "
                                                      "or quote the value)"},
  };
  for (const auto& [yaml, said] : words)
    if (message.rfind(yaml, 0) == 0) return said;
  return "YAML syntax error: " + message;
}

}  // namespace attn
