// Writing a text file whole: a reader, a kill or a full disk never leaves half of it under its
// name. Used for the pictures, pages and job scripts attnlab writes (the results files have
// their own, HDF5-aware, path: results_format.hpp's update_atomically).
#pragma once

#include <string>

#include "attnlab/errors.hpp"

namespace attn {

// Writes `text` to PATH.tmp-<pid>, makes it executable when asked, then renames it to `path`.
// On failure the temporary file is removed and a FileError says why (from errno).
void write_whole_file(const std::string& path, const std::string& text, bool executable = false);

// The FileError for a file that could not be written, from an errno value (0: no reason known).
FileError write_error(const std::string& path, int error);

}  // namespace attn
