#include "attnlab/data/text.hpp"

#include <cstdio>

#include <vector>

namespace attn {
namespace {

// Decodes valid UTF-8 into code points (callers validate first).
std::vector<char32_t> decode(const std::string& s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += static_cast<std::size_t>(n);
  }
  return out;
}

void encode(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

char32_t lower(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;                   // À..Þ except ×
  if (c >= 0x100 && c <= 0x137 && c % 2 == 0) return c + 1;                  // Ā..ķ
  if (c >= 0x139 && c <= 0x148 && c % 2 == 1) return c + 1;                  // Ĺ..ň
  if (c >= 0x14A && c <= 0x177 && c % 2 == 0) return c + 1;                  // Ŋ..ŷ (Œ -> œ)
  if (c == 0x178) return 0xFF;                                               // Ÿ -> ÿ
  if (c >= 0x179 && c <= 0x17E && c % 2 == 1) return c + 1;                  // Ź..ž
  return c;
}

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }

}  // namespace

std::optional<std::size_t> control_character_at(const std::string& s, const std::string& allowed) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (is_control(s[i]) && allowed.find(s[i]) == std::string::npos) return i;
  }
  return std::nullopt;
}

std::optional<std::string> not_text_at(const std::string& line) {
  if (const auto bad = invalid_utf8_at(line))
    return std::to_string(*bad + 1) + ": invalid UTF-8 (the file must be UTF-8 encoded)";
  const std::size_t body = !line.empty() && line.back() == '\r' ? line.size() - 1 : line.size();
  if (const auto control = control_character_at(line.substr(0, body), "\t"))
    return std::to_string(*control + 1) + ": a control character (" + code_point_name(line[*control]) + "): the file holds text only";
  return std::nullopt;
}

std::string without_byte_order_mark(std::string first_line) {
  if (first_line.rfind("\xEF\xBB\xBF", 0) == 0) first_line.erase(0, 3);
  return first_line;
}

std::string without_control_characters(std::string s, const std::string& kept) {
  for (char& c : s)
    if (is_control(c) && kept.find(c) == std::string::npos) c = '?';
  return s;
}

std::string code_point_name(char c) {
  char name[8];
  std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(c)));
  return name;
}

std::optional<std::size_t> invalid_utf8_at(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    int n = 0;
    char32_t cp = 0, min = 0;
    if (c < 0x80) { i += 1; continue; }
    if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07, min = 0x10000;
    else return i;
    if (i + static_cast<std::size_t>(n) > s.size()) return i;
    for (int k = 1; k < n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;  // overlong, range, surrogates
    i += static_cast<std::size_t>(n);
  }
  return std::nullopt;
}

std::string valid_utf8(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto bad = invalid_utf8_at(s.substr(i));
    const std::size_t good = bad ? *bad : s.size() - i;
    out.append(s, i, good);
    i += good;
    if (bad) out += "\xEF\xBF\xBD", ++i;  // U+FFFD for the byte that starts no character
  }
  return out;
}

std::vector<std::string> utf8_characters(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t len = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
    for (std::size_t k = 1; k < len; ++k)
      if (i + k >= text.size() || (static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) len = 1;
    out.push_back(text.substr(i, len));
    i += len;
  }
  return out;
}

std::string utf8_prefix(const std::string& s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;  // back to a character's first byte
  return s.substr(0, end);
}

std::string utf8_shortened(const std::string& s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  const std::string kept = utf8_prefix(s, max_bytes);
  return kept + " ... (" + std::to_string(s.size() - kept.size()) + " more bytes)";
}

std::string utf8_fit(const std::string& s, std::size_t width) {
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size() && chars < width; ++chars) {
    std::size_t n = 1;
    while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) ++n;
    out.append(s, i, n);
    i += n;
  }
  return out + std::string(width - chars, ' ');
}

std::string preprocess_nmt(const std::string& line) {
  std::vector<char32_t> text = decode(line);
  for (char32_t& c : text) c = (c == 0x202F || c == 0xA0) ? U' ' : lower(c);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    const bool punct = c == ',' || c == '.' || c == '!' || c == '?';
    if (i > 0 && punct && text[i - 1] != ' ') out += ' ';
    encode(c, out);
  }
  return out;
}

}  // namespace attn
