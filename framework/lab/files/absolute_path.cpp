#include "lab/files/absolute_path.hpp"

#include <filesystem>

namespace attn {

std::string absolute_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return path;
  const fs::path resolved = fs::weakly_canonical(absolute, ec);
  return ec ? absolute.string() : resolved.string();
}

}  // namespace attn
