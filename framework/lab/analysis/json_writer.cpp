#include "attnlab/data/text.hpp"
#include "lab/analysis/json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace attn {

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  out_ += bracket;
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(const std::string& name) {
  value(name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& text) {
  separate();
  out_ += '"';
  for (const char c : valid_utf8(text)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out_ += '\\';
      out_ += c;
    } else if (u < 0x20 || c == '<' || c == '>' || c == '&') {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", u);
      out_ += escaped;
    } else {
      out_ += c;
    }
  }
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(double number, int decimals) {
  separate();
  if (!std::isfinite(number)) {
    out_ += "null";
    return *this;
  }
  char text[64];
  if (decimals < 0) {
    std::snprintf(text, sizeof text, "%.7g", number);
    out_ += text;
    return *this;
  }
  std::snprintf(text, sizeof text, "%.*f", decimals, number);
  std::string s = text;
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  out_ += s == "-0" ? "0" : s;
  return *this;
}

JsonWriter& JsonWriter::value(std::size_t number) {
  separate();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  separate();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::strings(const std::vector<std::string>& texts) {
  array();
  for (const std::string& t : texts) value(t);
  return end_array();
}

JsonWriter& JsonWriter::numbers(const std::vector<double>& values, int decimals) {
  array();
  for (const double v : values) value(v, decimals);
  return end_array();
}

}  // namespace attn
