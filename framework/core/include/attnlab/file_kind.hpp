// What a path the user gave is, when it is not a regular file: "this is a directory", "this is
// a FIFO (named pipe)", ... or "" for a regular file. Asked before opening a spec, a data file,
// a results file or a checkpoint, so that a FIFO is never opened (that could block forever)
// and a directory or device is named as what it is.
#pragma once

#include <string>

namespace attn {

std::string not_a_regular_file(const std::string& path);

// Why there is no file at `path`, for a path not_a_regular_file() calls "no such file": "no such
// file", or that no file can have that name (a part over 255 bytes, or a path over 4095).
std::string no_file_reason(const std::string& path);

// Why `path`, where attnlab is to write a file, cannot take one because something else is there
// (a directory, FIFO or device: never opened or replaced, even with --force): "the output PATH:
// this is a directory, not a file; move it away or choose another OPTION"; "" otherwise.
std::string non_file_output(const std::string& path, const std::string& option);

// non_file_output's problem, else output_path_problem's: the checks of every output path.
std::string output_file_problem(const std::string& path, const std::string& option);

// Why no file can be written at `path` (which may exist): its name is too long, its directory
// does not exist, is a file, or cannot be written ("permission denied"); "" when one can.
// `option` names where the path came from ("--output", "-o"), for the advice.
std::string output_path_problem(const std::string& path, const std::string& option);

// The bytes free for an unprivileged writer on the file system that holds `path` (a file that
// may not exist yet: its directory is asked); -1 when it cannot be told.
double free_space_for(const std::string& path);

}  // namespace attn
