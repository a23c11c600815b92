// A JSON text written front to back (the data `attnlab report` embeds in its page). Commas are
// placed by the writer; strings are escaped so that the text can sit inside a <script> element
// ('<' is written \u003c); numbers that are not finite are written null.
#pragma once

#include <string>
#include <vector>

namespace attn {

class JsonWriter {
 public:
  JsonWriter& object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(const std::string& name);
  JsonWriter& value(const std::string& text);
  JsonWriter& value(const char* text) { return value(std::string(text)); }
  // 7 significant digits; or, with decimals >= 0, that many decimals with trailing zeros trimmed
  // (attention weights: 3 decimals keep a 1000-step colour scale and a third of the bytes).
  JsonWriter& value(double number, int decimals = -1);
  JsonWriter& value(std::size_t number);
  JsonWriter& value(bool flag);
  JsonWriter& strings(const std::vector<std::string>& texts);
  JsonWriter& numbers(const std::vector<double>& values, int decimals = -1);
  const std::string& text() const { return out_; }

 private:
  JsonWriter& open(char bracket);   // a container: its elements follow
  JsonWriter& close(char bracket);
  void separate();  // a comma before every element but the first of its container
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace attn
