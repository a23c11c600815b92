// A small HDF5 file API for attnlab's results and checkpoints: tensors as datasets at
// slash-separated paths (intermediate groups are created), scalar attributes on any object.
// HDF5 types stay inside hdf5_file.cpp; every HDF5 failure becomes an FileError naming the
// file and the object.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/tensor.hpp"

namespace attn {

// Whether a thread is inside the HDF5 library now (a crash there is the file's damage; a crash
// elsewhere is attnlab's bug: the reading commands tell the two apart, cli/main.cpp).
bool inside_hdf5_library();

class Hdf5File {
 public:
  enum class Mode { read, read_write, create_truncate };
  Hdf5File(const std::string& path, Mode mode);
  ~Hdf5File();
  Hdf5File(Hdf5File&&) noexcept;
  Hdf5File& operator=(Hdf5File&&) noexcept;

  // Datasets (an existing one at `path` is replaced).
  void write(const std::string& path, const Tensor& t);
  void write(const std::string& path, const IntTensor& t);
  void write(const std::string& path, const std::vector<std::string>& strings);
  void write(const std::string& path, const std::vector<double>& values);  // float64
  Tensor read(const std::string& path) const;
  std::vector<std::string> read_strings(const std::string& path) const;
  std::vector<double> read_doubles(const std::string& path) const;
  Shape shape(const std::string& path) const;

  // Groups and structure.
  void create_group(const std::string& path);  // with parents; no-op when it exists
  bool exists(const std::string& path) const;
  bool is_group(const std::string& path) const;
  // Where the object at `path` lives in the file: two paths (hard links) to one object give the
  // same address, so a walk that remembers them never goes round a cycle.
  unsigned long long object_address(const std::string& path) const;
  std::vector<std::string> children(const std::string& group_path) const;  // sorted names
  void remove(const std::string& path);
  // Copies the group or dataset at `path` of `source`, with everything under it, to the same
  // path here (its parent groups are created; an object already there is a FileError).
  void copy_from(const Hdf5File& source, const std::string& path);

  // Scalar attributes on a group or dataset ("/" is the file itself).
  void set_attr(const std::string& object, const std::string& name, const std::string& value);
  void set_attr(const std::string& object, const std::string& name, double value);
  void set_attr(const std::string& object, const std::string& name, long value);
  bool has_attr(const std::string& object, const std::string& name) const;
  enum class AttrType { string, integer, real, other };
  AttrType attr_type(const std::string& object, const std::string& name) const;
  std::string attr_string(const std::string& object, const std::string& name) const;
  double attr_double(const std::string& object, const std::string& name) const;
  long attr_long(const std::string& object, const std::string& name) const;
  // An attribute that counts something: a whole number in [least, most]; anything else is a
  // damaged file (FileError), never a huge or wrapped-around count.
  std::size_t attr_count(const std::string& object, const std::string& name, std::size_t least, std::size_t most) const;
  std::vector<std::string> attr_names(const std::string& object) const;

  const std::string& path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

}  // namespace attn
