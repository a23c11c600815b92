// A command's claim on the file it writes. Two promises, kept for every command that writes:
//  - the output is none of the files the command reads. Files are compared by identity (device
//    and inode), so a symbolic link or a hard link to an input is that input, refused alike;
//  - no two attnlab commands write one output at once. The claim holds an advisory lock
//    (flock) on OUTPUT.lock from before the output's existence is checked until the command
//    ends; a second command asking for it is refused at once (exit 2), naming the holder. The
//    lock dies with its process, so a killed command leaves at most an unlocked OUTPUT.lock,
//    which the next claim takes over.
#pragma once

#include <string>
#include <vector>

namespace attn {

// A file a command reads, and what it is to the user ("the spec", "the corpus", "a part").
struct InputFile {
  std::string path, what;
};

// Why `output` cannot be written: it is one of `inputs` (the same file, through any links),
// named in a sentence; "" when it is none of them.
std::string output_is_input(const std::string& output, const std::vector<InputFile>& inputs);

class OutputClaim {
 public:
  // Throws UsageError when `output` is one of `inputs` or another command holds it.
  OutputClaim(const std::string& output, const std::vector<InputFile>& inputs);
  ~OutputClaim();
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
};

}  // namespace attn
