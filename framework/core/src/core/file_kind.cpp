#include "attnlab/file_kind.hpp"

#include <sys/statvfs.h>

#include <filesystem>

namespace attn {

std::string not_a_regular_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec == std::errc::permission_denied) return "permission denied";
  if (ec || !fs::exists(st)) return "no such file";
  if (fs::is_directory(st)) return "this is a directory";
  if (fs::is_fifo(st)) return "this is a FIFO (named pipe)";
  if (fs::is_socket(st)) return "this is a socket";
  if (fs::is_block_file(st) || fs::is_character_file(st)) return "this is a device";
  if (!fs::is_regular_file(st)) return "this is not a regular file";
  return "";
}

double free_space_for(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  struct statvfs fs {};
  if (statvfs(parent.empty() ? "." : parent.c_str(), &fs) != 0) return -1;
  return static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
}

}  // namespace attn
