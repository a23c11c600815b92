// What a path the user gave is, when it is not a regular file: "this is a directory", "this is
// a FIFO (named pipe)", ... or "" for a regular file. Asked before opening a spec, a results
// file or a checkpoint, so that a FIFO is never opened (that could block forever) and a
// directory or device is named as what it is.
#pragma once

#include <string>

namespace attn {

std::string not_a_regular_file(const std::string& path);

}  // namespace attn
