#include "lab/files/whole_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace attn {

FileError write_error(const std::string& path, int error) {
  return FileError("cannot write '" + path + "': " + (error == ENOSPC ? "no space left on the device"
                                                      : error ? std::strerror(error)
                                                              : "is the directory there and writable?"));
}

void write_whole_file(const std::string& path, const std::string& text, bool executable) {
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  errno = 0;
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.close();
    if (out && (!executable || chmod(tmp.c_str(), 0755) == 0) && std::rename(tmp.c_str(), path.c_str()) == 0) return;
  }
  const int error = errno;
  std::remove(tmp.c_str());
  throw write_error(path, error);
}

}  // namespace attn
