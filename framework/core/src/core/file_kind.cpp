#include "attnlab/file_kind.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
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

std::string no_file_reason(const std::string& path) {
  std::size_t longest = 0;
  for (const auto& part : std::filesystem::path(path)) longest = std::max(longest, part.native().size());
  if (longest > 255)
    return "no file can have this name: a part of it is " + std::to_string(longest) +
           " bytes long, and a file system allows 255 bytes per name";
  if (path.size() > 4095)
    return "no file can have this name: the path is " + std::to_string(path.size()) + " bytes long, at most 4095 are allowed";
  return "no such file";
}

std::string non_file_output(const std::string& path, const std::string& option) {
  const std::string what = not_a_regular_file(path);
  if (what.rfind("this is", 0) != 0) return "";  // a regular file, none, or one that cannot be looked at
  return "the output " + path + ": " + what + ", not a file; move it away or choose another " + option;
}

std::string output_file_problem(const std::string& path, const std::string& option) {
  const std::string problem = non_file_output(path, option);
  return problem.empty() ? output_path_problem(path, option) : problem;
}

std::string output_path_problem(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  if (path.empty()) return option + " is empty: give a file path";
  const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  // attnlab writes under a temporary name (the name, '.creating-' and a process id) first
  if (const std::size_t name = fs::path(path).filename().string().size(); name > 200)
    return "the file name is " + std::to_string(name) + " bytes long; file systems allow 255 and attnlab needs room " +
           "for a temporary suffix: use a name of at most 200 bytes (" + option + ")";
  const std::string what = not_a_regular_file(dir.string());
  if (what == "no such file")
    return "the directory '" + dir.string() + "' does not exist; create it or choose another " + option;
  if (what == "permission denied") return "the directory '" + dir.string() + "' cannot be entered: permission denied";
  if (what != "this is a directory")
    return "'" + dir.string() + "' is " + (what.empty() ? "a file" : what.substr(8)) + ", not a directory: " + option +
           " must be a path in a directory";
  // writable? (access() says yes to root even where writing fails, so try it)
  const std::string probe = (dir / (".attnlab-write-probe-" + std::to_string(getpid()))).string();
  std::FILE* f = std::fopen(probe.c_str(), "w");
  if (!f) return "the directory '" + dir.string() + "' cannot be written: permission denied (or a read-only file system)";
  std::fclose(f);
  std::remove(probe.c_str());
  return "";
}

double free_space_for(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  struct statvfs fs {};
  if (statvfs(parent.empty() ? "." : parent.c_str(), &fs) != 0) return -1;
  return static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
}

}  // namespace attn
