#include "lab/files/output_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "attnlab/errors.hpp"

namespace attn {
namespace {

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

std::string normal(const std::string& path) {
  std::error_code ec;
  return std::filesystem::absolute(path, ec).lexically_normal().string();
}

// The process id a holder wrote into the lock file, as text ("" when there is none).
std::string holder_of(int fd) {
  char text[32] = {};
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  std::string pid = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : "";
}

// Opens and locks `lock_path`; a lock file removed by its holder between our open and our lock
// is not the one the path names any more, so the path is opened again.
int take_lock(const std::string& lock_path, const std::string& output) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      throw UsageError("cannot make the lock file '" + lock_path + "' that keeps two commands from writing '" + output +
                       "' at once: " + std::strerror(errno) + "; its directory must be writable (for a command that adds to a results file: "
                       "give it a copy in a writable directory)");
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const std::string pid = holder_of(fd);
      close(fd);
      throw UsageError("'" + output + "' is being written by another attnlab command" + (pid.empty() ? "" : " (process " + pid + ")") +
                       "; wait for it to end, or choose another output");
    }
    struct stat held {}, named {};
    if (fstat(fd, &held) == 0 && stat(lock_path.c_str(), &named) == 0 && same_file(held, named)) {
      const std::string pid = std::to_string(getpid()) + "\n";
      // The process id is only for another command's message: the lock holds without it.
      [[maybe_unused]] const bool named_holder = ftruncate(fd, 0) == 0 && pwrite(fd, pid.data(), pid.size(), 0) > 0;
      return fd;
    }
    close(fd);
  }
  throw UsageError("'" + output + "' is being claimed and released by other attnlab commands again and again; try again");
}

}  // namespace

std::string output_is_input(const std::string& output, const std::vector<InputFile>& inputs) {
  struct stat out {};
  if (stat(output.c_str(), &out) != 0) return "";  // a file that does not exist is no input
  for (const InputFile& input : inputs) {
    struct stat in {};
    if (stat(input.path.c_str(), &in) != 0 || !same_file(out, in)) continue;
    const bool itself = normal(output) == normal(input.path);
    return "the output '" + output + "' is " + input.what + (itself ? " itself" : " ('" + input.path + "', through a link)") +
           ", which this command reads; writing the output would replace it: choose another output";
  }
  return "";
}

OutputClaim::OutputClaim(const std::string& output, const std::vector<InputFile>& inputs) : lock_path_(output + ".lock") {
  if (const std::string clash = output_is_input(output, inputs); !clash.empty()) throw UsageError(clash);
  fd_ = take_lock(lock_path_, output);
}

OutputClaim::~OutputClaim() {
  unlink(lock_path_.c_str());  // while still locked: a command that opened it meanwhile is refused, never lets two in
  close(fd_);
}

}  // namespace attn
