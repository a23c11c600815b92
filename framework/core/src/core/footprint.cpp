#include "attnlab/footprint.hpp"

#include <cstdio>

namespace attn {

std::string memory_text(double bytes) {
  static const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < sizeof units / sizeof *units) bytes /= 1024, ++unit;
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 || bytes >= 100 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

std::string first_written(const Options& options, const std::vector<std::string>& keys) {
  for (const std::string& key : keys)
    if (options.has(key)) return options.where(key);
  return "";
}

}  // namespace attn
