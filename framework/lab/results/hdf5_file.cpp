#include "lab/results/hdf5_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "attnlab/data/text.hpp"
#include "attnlab/file_kind.hpp"

#include <H5Cpp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdio>
#include <functional>
#include <mutex>

namespace attn {

struct Hdf5File::Impl {
  Impl(const std::string& path, unsigned flags, const H5::FileCreatPropList& creation, const H5::FileAccPropList& access)
      : file(path, flags, creation, access) {}
  H5::H5File file;
};

namespace {

// The most specific message of the first HDF5 call that failed inside guarded() ("incorrect
// metadata checksum after all read attempts" says more than the C++ wrapper's "H5Fopen
// failed"). HDF5 hands its error stack to this handler when a call fails; the stack cannot be
// read later, as calls the C++ wrapper makes while unwinding clear it.
thread_local std::string first_hdf5_error;

herr_t remember_first_error(hid_t stack, void*) {
  if (first_hdf5_error.empty())
    H5Ewalk2(
        stack, H5E_WALK_UPWARD,
        [](unsigned n, const H5E_error2_t* error, void*) -> herr_t {
          if (n == 0 && error->desc) first_hdf5_error = error->desc;
          return 0;
        },
        nullptr);
  return 0;
}

// The handler is installed only while guarded() runs: with one installed at exit, libhdf5
// 1.10's clean-up prints "HDF5: infinite loop closing library" after it has failed to read a
// damaged file (structures it keeps from the failed read; nothing attnlab holds open).
struct ErrorHandlerScope {
  ErrorHandlerScope() {
    first_hdf5_error.clear();
    H5Eset_auto2(H5E_DEFAULT, remember_first_error, nullptr);
  }
  ~ErrorHandlerScope() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }
};

// Debian's libhdf5 is built without thread safety: no two threads may be inside it at once.
// Every HDF5 call attnlab makes holds this lock (run threads write checkpoints while the
// runner's writer thread writes results).
std::recursive_mutex& library_lock() {
  static std::recursive_mutex lock;
  return lock;
}

std::atomic<int> calls_inside_hdf5{0};

// Counts the calls inside libhdf5 for inside_hdf5_library().
struct InsideHdf5 {
  InsideHdf5() { ++calls_inside_hdf5; }
  ~InsideHdf5() { --calls_inside_hdf5; }
};

// HDF5's own words where they would puzzle a person, said plainly ("truncated file: eof = 3000,
// sblock->base_addr = 0, stored_eof = 177248" is a file cut short).
std::string readable(const std::string& library) {
  if (library.find("no appropriate function for conversion path") != std::string::npos)
    return "it holds another type of value than attnlab writes there (a string for a number, or the reverse): "
           "the file is damaged or was changed by another program";
  if (library.find("component not found") != std::string::npos || library.find("can't locate attribute") != std::string::npos)
    return "it is missing (the file is damaged or was changed by another program)";
  if (library.find("message type not found") != std::string::npos)
    return "a dataset stands where attnlab writes a group (the file was changed by another program)";
  if (library.find("unable to open file, file name = ") != std::string::npos)
    return "it leads through a link to another file, which attnlab's results files never hold (the file was changed by "
           "another program)";
  if (library.rfind("truncated file", 0) == 0) {
    const auto number_after = [&](const std::string& key) {
      const std::size_t at = library.find(key);
      return at == std::string::npos ? std::string("?") : library.substr(at + key.size(), library.find(',', at) - at - key.size());
    };
    return "the file is cut short: " + number_after("eof = ") + " of its " + number_after("stored_eof = ") +
           " bytes are there (an interrupted copy, download or write?)";
  }
  // "unable to open file: name = 'x', errno = 21, error message = 'Is a directory', flags = 13,
  // o_flags = 242" and "file write failed: time = ..., errno = 28, ...": the system's reason.
  const std::size_t at = library.find("errno = ");
  if (at != std::string::npos) {
    const int code = std::atoi(library.c_str() + at + 8);
    const std::string reason = code == ENOSPC   ? "no space left on the device: free some space, or write elsewhere"
                               : code == EACCES ? "permission denied"
                               : code == EISDIR ? "this is a directory"
                               : code == EROFS  ? "the file system is read-only"
                                                : std::string(std::strerror(code));
    return (library.rfind("file write failed", 0) == 0 ? "cannot write: " : "") + reason;
  }
  return library;
}

// Runs f, turning HDF5's exceptions into one readable line. attnlab's own checks throw with
// no function name; the library's failures are described by its error stack.
template <class F>
auto guarded(const std::string& file, const std::string& what, F&& f) -> decltype(f()) {
  const std::lock_guard<std::recursive_mutex> lock(library_lock());
  const InsideHdf5 inside;
  const ErrorHandlerScope scope;
  try {
    return f();
  } catch (const H5::Exception& e) {
    std::string library = e.getFuncName().empty() ? "" : readable(first_hdf5_error);
    if (library.find("checksum") != std::string::npos) library += " (the file is damaged)";
    throw FileError(file + ": " + what + ": " + (library.empty() ? e.getDetailMsg() : library));
  }
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : path) {
    if (c == '/') {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

std::string parent_of(const std::string& path) {
  const auto pos = path.find_last_of('/');
  return pos == std::string::npos || pos == 0 ? "/" : path.substr(0, pos);
}

bool link_exists(const H5::H5File& f, const std::string& path) {
  std::string cur;
  for (const std::string& part : split_path(path)) {
    cur += "/" + part;
    if (H5Lexists(f.getId(), cur.c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return true;
}

// attnlab writes strings fixed-length (UTF-8, NUL-terminated). It refuses variable-length ones:
// reading them goes through HDF5's global heap, where a damaged file can make the library loop
// (found by fuzzing); a fixed-length string is read into a buffer of known size.
// cset: what attnlab writes (UTF-8), or when reading, the stored one (ASCII is UTF-8's subset;
// HDF5 converts between the two no more than between a string and a number).
H5::StrType fixed_string(std::size_t width, H5T_cset_t cset = H5T_CSET_UTF8) {
  H5::StrType type(H5::PredType::C_S1, std::max<std::size_t>(width, 1));
  type.setCset(cset);
  type.setStrpad(H5T_STR_NULLTERM);
  return type;
}

std::size_t checked_fixed_width(const H5::DataType& type) {
  if (type.getClass() != H5T_STRING) throw H5::DataTypeIException("", "it holds another type of value than the strings attnlab writes there: the file is damaged or was changed by another program");
  if (H5Tis_variable_str(type.getId()) > 0)
    throw H5::DataTypeIException("", "a variable-length string (attnlab writes fixed-length strings; not an attnlab file, or an old one)");
  const std::size_t width = type.getSize();
  if (width == 0 || width > (std::size_t{1} << 26)) throw H5::DataTypeIException("", "implausible string size");
  return width;
}

// Calls f(object) with the group or dataset at `path`.
template <class F>
auto with_object(H5::H5File& f, const std::string& path, F&& fn) {
  if (path == "/" || path.empty()) {
    H5::Group g = f.openGroup("/");
    return fn(static_cast<H5::H5Object&>(g));
  }
  H5O_info_t info;
  if (H5Oget_info_by_name(f.getId(), path.c_str(), &info, H5P_DEFAULT) < 0)
    throw H5::GroupIException("H5Oget_info_by_name", "cannot open " + path);
  if (info.type == H5O_TYPE_GROUP) {
    H5::Group g = f.openGroup(path);
    return fn(static_cast<H5::H5Object&>(g));
  }
  H5::DataSet d = f.openDataSet(path);
  return fn(static_cast<H5::H5Object&>(d));
}

// Every metadata structure of HDF5's newer file format (superblock version 2 and later, object
// headers version 2, fractal heaps, v2 B-trees) carries a checksum that the library verifies
// before it parses the structure. Version 0 and 1 superblocks, old object headers, local heaps
// and symbol tables carry none, and libhdf5 1.10.8 crashes on some damaged ones (found by
// fuzzing; docs/reliability.md). attnlab therefore writes the newer format (readable by
// HDF5 >= 1.8) and reads only files written in it, so damage shows up as a checksum error.
H5::FileAccPropList checksummed_format() {
  H5::FileAccPropList fapl;
  fapl.setLibverBounds(H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  return fapl;
}

// Every group keeps its links in its own object header ("compact" storage, checksummed), however
// many it has: by default a group of more than 8 links moves them to a fractal heap indexed by a
// v2 B-tree, and libhdf5 1.10.8 crashed reading damaged ones (a history of 10 columns was enough;
// tests/test_analysis.cpp's damage test under AddressSanitizer). 65535 is the largest threshold.
void keep_links_compact(hid_t group_or_file_creation) {
  if (H5Pset_link_phase_change(group_or_file_creation, 65535, 65535) < 0)
    throw H5::PropListIException("", "cannot set the link storage");
}

H5::FileCreatPropList compact_root() {
  H5::FileCreatPropList fcpl;
  keep_links_compact(fcpl.getId());
  return fcpl;
}

// The superblock version of the file at `path`: HDF5 looks for its signature at offset 0, then
// 512, 1024, 2048... (after a user block); the version is the byte that follows. -1: no signature.
int superblock_version(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    const int error = errno;
    std::string why = error == EACCES ? "permission denied" : std::strerror(error);
    if (error == ENOENT || error == ENAMETOOLONG) {  // no_file_reason names a name no file can have
      const std::string reason = no_file_reason(path);
      if (error == ENOENT || reason != "no such file") why = reason;
    }
    throw H5::FileIException("", why);
  }
  static constexpr unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  int version = -1;
  for (long offset = 0; version < 0; offset = offset == 0 ? 512 : offset * 2) {
    unsigned char head[9];
    if (std::fseek(f, offset, SEEK_SET) != 0 || std::fread(head, 1, sizeof head, f) != sizeof head) break;
    if (std::memcmp(head, signature, sizeof signature) == 0) version = head[8];
  }
  std::fclose(f);
  return version;
}

void require_checksummed_format(const std::string& path) {
  const int version = superblock_version(path);
  if (version < 0) throw H5::FileIException("", "not an HDF5 file");
  if (version < 2)
    throw H5::FileIException("", "written in HDF5's old file format (superblock version " + std::to_string(version) +
                                     "), whose metadata has no checksums; attnlab reads only the checksummed format "
                                     "(version 2 or later) it writes. Convert a file you trust with: h5repack -L " +
                                     path + " NEW.h5");
}

template <class T>
void write_dataset(H5::H5File& f, const std::string& path, const Shape& shape, const T* data,
                   const H5::PredType& type) {
  std::vector<hsize_t> dims(shape.begin(), shape.end());
  const H5::DataSpace space(static_cast<int>(dims.size()), dims.data());
  H5::DataSet ds = f.createDataSet(path, type, space);
  ds.write(data, type);
}

}  // namespace

Hdf5File::Hdf5File(const std::string& path, Mode mode) : path_(path) {
  // never opened: a FIFO could block, and a device or directory is no results file (a new file
  // may not exist yet)
  if (const std::string what = not_a_regular_file(path); !what.empty() && what != "no such file")
    throw FileError(path + ": cannot open as an HDF5 file: " + what);
  guarded(path, "cannot open as an HDF5 file", [&] {
    if (mode != Mode::create_truncate) require_checksummed_format(path);
    const unsigned flags = mode == Mode::create_truncate ? H5F_ACC_TRUNC
                           : mode == Mode::read          ? H5F_ACC_RDONLY
                                                         : H5F_ACC_RDWR;
    impl_ = std::make_unique<Impl>(path, flags, mode == Mode::create_truncate ? compact_root() : H5::FileCreatPropList::DEFAULT,
                                   checksummed_format());
  });
}

Hdf5File::~Hdf5File() {
  const std::lock_guard<std::recursive_mutex> lock(library_lock());
  if (!impl_) return;
  try {  // closed here, so that a failure is not printed by H5File's own destructor
    const ErrorHandlerScope scope;
    impl_->file.close();
  } catch (const H5::Exception&) {
  }
  impl_.reset();
}

Hdf5File::Hdf5File(Hdf5File&&) noexcept = default;

Hdf5File& Hdf5File::operator=(Hdf5File&& other) noexcept {
  const std::lock_guard<std::recursive_mutex> lock(library_lock());
  impl_ = std::move(other.impl_);
  path_ = std::move(other.path_);
  return *this;
}

void Hdf5File::create_group(const std::string& path) {
  guarded(path_, "cannot create group " + path, [&] {
    std::string cur;
    for (const std::string& part : split_path(path)) {
      cur += "/" + part;
      if (H5Lexists(impl_->file.getId(), cur.c_str(), H5P_DEFAULT) > 0) continue;
      const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
      keep_links_compact(gcpl);
      const hid_t group = H5Gcreate2(impl_->file.getId(), cur.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT);
      H5Pclose(gcpl);
      if (group < 0) throw H5::GroupIException("", "H5Gcreate2 failed");
      H5Gclose(group);
    }
  });
}

bool Hdf5File::exists(const std::string& path) const {
  return path == "/" || guarded(path_, "cannot look up " + path, [&] { return link_exists(impl_->file, path); });
}

bool Hdf5File::is_group(const std::string& path) const {
  if (path == "/") return true;
  return exists(path) && guarded(path_, "cannot inspect " + path, [&] {
           H5O_info_t info;
           if (H5Oget_info_by_name(impl_->file.getId(), path.c_str(), &info, H5P_DEFAULT) < 0)
             throw H5::GroupIException("H5Oget_info_by_name", "cannot inspect " + path);
           return info.type == H5O_TYPE_GROUP;
         });
}

unsigned long long Hdf5File::object_address(const std::string& path) const {
  return guarded(path_, "cannot inspect " + path, [&] {
    H5O_info_t info;
    if (H5Oget_info_by_name(impl_->file.getId(), path.c_str(), &info, H5P_DEFAULT) < 0)
      throw H5::GroupIException("H5Oget_info_by_name", "cannot inspect " + path);
    return static_cast<unsigned long long>(info.addr);
  });
}

bool inside_hdf5_library() { return calls_inside_hdf5.load() > 0; }

void Hdf5File::copy_from(const Hdf5File& source, const std::string& path) {
  create_group(parent_of(path));
  guarded(path_, "cannot copy " + path + " from " + source.path(), [&] {
    if (H5Lexists(impl_->file.getId(), path.c_str(), H5P_DEFAULT) > 0) throw H5::GroupIException("", path + " exists already");
    if (H5Ocopy(source.impl_->file.getId(), path.c_str(), impl_->file.getId(), path.c_str(), H5P_DEFAULT, H5P_DEFAULT) < 0)
      throw H5::GroupIException("H5Ocopy", "H5Ocopy failed");
  });
}

void Hdf5File::remove(const std::string& path) {
  if (exists(path)) guarded(path_, "cannot remove " + path, [&] { impl_->file.unlink(path); });
}

void Hdf5File::write(const std::string& path, const Tensor& t) {
  create_group(parent_of(path));
  remove(path);
  guarded(path_, "cannot write " + path, [&] {
    write_dataset(impl_->file, path, shape_of(t), t.data(), H5::PredType::NATIVE_FLOAT);
  });
}

void Hdf5File::write(const std::string& path, const IntTensor& t) {
  create_group(parent_of(path));
  remove(path);
  guarded(path_, "cannot write " + path, [&] {
    write_dataset(impl_->file, path, Shape(t.shape().begin(), t.shape().end()), t.data(), H5::PredType::NATIVE_INT);
  });
}

void Hdf5File::write(const std::string& path, const std::vector<std::string>& texts) {
  std::vector<std::string> strings;  // the dataset's character set is UTF-8
  for (const std::string& t : texts) strings.push_back(valid_utf8(t));
  create_group(parent_of(path));
  remove(path);
  guarded(path_, "cannot write " + path, [&] {
    std::size_t width = 1;
    for (const auto& s : strings) width = std::max(width, s.size() + 1);
    const H5::StrType type = fixed_string(width);
    hsize_t n = strings.size();
    const H5::DataSpace space(1, &n);
    std::vector<char> buffer(strings.size() * width, '\0');
    for (std::size_t i = 0; i < strings.size(); ++i) std::copy(strings[i].begin(), strings[i].end(), buffer.begin() + static_cast<std::ptrdiff_t>(i * width));
    H5::DataSet ds = impl_->file.createDataSet(path, type, space);
    if (n) ds.write(buffer.data(), type);
  });
}

void Hdf5File::write(const std::string& path, const std::vector<double>& values) {
  create_group(parent_of(path));
  remove(path);
  guarded(path_, "cannot write " + path, [&] {
    write_dataset(impl_->file, path, Shape{values.size()}, values.data(), H5::PredType::NATIVE_DOUBLE);
  });
}

std::vector<double> Hdf5File::read_doubles(const std::string& path) const {
  const Shape s = shape(path);
  std::vector<double> out(num_elements(s));
  guarded(path_, "cannot read " + path + " as numbers", [&] {
    if (!out.empty()) impl_->file.openDataSet(path).read(out.data(), H5::PredType::NATIVE_DOUBLE);
  });
  return out;
}

Shape Hdf5File::shape(const std::string& path) const {
  return guarded(path_, "cannot read " + path, [&] {
    const H5::DataSet ds = impl_->file.openDataSet(path);
    const H5::DataSpace space = ds.getSpace();
    const int rank = space.getSimpleExtentNdims();
    if (rank < 0 || rank > 32) throw H5::DataSetIException("", "implausible rank");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    space.getSimpleExtentDims(dims.data());
    // A damaged file can claim any size: the data (stored uncompressed by attnlab) must fit in
    // the file, which also keeps every product below overflow.
    hsize_t file_size = 0;
    H5Fget_filesize(impl_->file.getId(), &file_size);
    const double bytes = static_cast<double>(ds.getDataType().getSize());
    double total = bytes;
    for (hsize_t d : dims) total *= static_cast<double>(d);
    if (total > static_cast<double>(file_size) + 1024.0) {
      char claim[64];
      std::snprintf(claim, sizeof claim, "%.3g", total);
      throw H5::DataSetIException("", std::string("claims ") + claim + " bytes of data in a file of " +
                                          std::to_string(file_size) + " bytes (a damaged file)");
    }
    return Shape(dims.begin(), dims.end());
  });
}

Tensor Hdf5File::read(const std::string& path) const {
  const Shape s = shape(path);
  Tensor t = Tensor::from_shape(s);
  guarded(path_, "cannot read " + path + " as float32", [&] {
    impl_->file.openDataSet(path).read(t.data(), H5::PredType::NATIVE_FLOAT);
  });
  return t;
}

std::vector<std::string> Hdf5File::read_strings(const std::string& path) const {
  return guarded(path_, "cannot read " + path + " as strings", [&] {
    H5::DataSet ds = impl_->file.openDataSet(path);
    const std::size_t width = checked_fixed_width(ds.getDataType());
    const H5::DataSpace space = ds.getSpace();
    if (space.getSimpleExtentNdims() != 1) throw H5::DataSetIException("", "expected a 1-D list of strings");
    hsize_t n = 0;
    space.getSimpleExtentDims(&n);
    if (n > (hsize_t{1} << 24) || n * width > (hsize_t{1} << 30)) throw H5::DataSetIException("", "implausibly large list of strings");
    const std::size_t stride = width + 1;  // room for the NUL of a string written without one (NULLPAD)
    std::vector<char> buffer(static_cast<std::size_t>(n) * stride, '\0');
    if (n) ds.read(buffer.data(), fixed_string(stride, ds.getStrType().getCset()));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) {
      const char* p = buffer.data() + i * stride;
      out.emplace_back(p, strnlen(p, width));
    }
    return out;
  });
}

std::vector<std::string> Hdf5File::children(const std::string& group_path) const {
  return guarded(path_, "cannot list " + group_path, [&] {
    // One pass over the links (H5Literate), not one name lookup per index: for a group with its
    // links in a fractal heap (files written by h5py or older attnlab), a lookup by index rebuilds
    // the whole link table each time, and libhdf5 1.10.8 crashed freeing it on a damaged heap.
    H5::Group g = impl_->file.openGroup(group_path.empty() ? "/" : group_path);
    const auto collect = [](hid_t, const char* name, const H5L_info_t* info, void* out) -> herr_t {
      auto* lists = static_cast<std::vector<std::string>*>(out);
      lists[info->type == H5L_TYPE_EXTERNAL ? 1 : 0].emplace_back(name);
      return 0;
    };
    std::vector<std::string> lists[2];  // the names; links to other files, which attnlab never writes: refused, never followed
    if (H5Literate(g.getId(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, lists) < 0)
      throw H5::GroupIException("", "H5Literate failed");
    if (!lists[1].empty())
      throw H5::GroupIException("", group_path + "/" + lists[1][0] + " is a link to another file, which attnlab's results "
                                    "files never hold (the file was changed by another program); it is not followed");
    std::sort(lists[0].begin(), lists[0].end());
    return lists[0];
  });
}

void Hdf5File::set_attr(const std::string& object, const std::string& name, const std::string& text) {
  const std::string value = valid_utf8(text);  // the attribute's character set is UTF-8
  guarded(path_, "cannot set attribute " + name + " on " + object, [&] {
    with_object(impl_->file, object, [&](H5::H5Object& o) {
      if (o.attrExists(name)) o.removeAttr(name);
      const H5::StrType type = fixed_string(value.size() + 1);
      H5::Attribute a = o.createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
      a.write(type, value.c_str());
    });
  });
}

void Hdf5File::set_attr(const std::string& object, const std::string& name, double value) {
  guarded(path_, "cannot set attribute " + name + " on " + object, [&] {
    with_object(impl_->file, object, [&](H5::H5Object& o) {
      if (o.attrExists(name)) o.removeAttr(name);
      o.createAttribute(name, H5::PredType::NATIVE_DOUBLE, H5::DataSpace(H5S_SCALAR))
          .write(H5::PredType::NATIVE_DOUBLE, &value);
    });
  });
}

void Hdf5File::set_attr(const std::string& object, const std::string& name, long value) {
  guarded(path_, "cannot set attribute " + name + " on " + object, [&] {
    with_object(impl_->file, object, [&](H5::H5Object& o) {
      if (o.attrExists(name)) o.removeAttr(name);
      o.createAttribute(name, H5::PredType::NATIVE_LONG, H5::DataSpace(H5S_SCALAR))
          .write(H5::PredType::NATIVE_LONG, &value);
    });
  });
}

bool Hdf5File::has_attr(const std::string& object, const std::string& name) const {
  return guarded(path_, "cannot read attributes of " + object, [&] {
    return with_object(impl_->file, object, [&](H5::H5Object& o) { return o.attrExists(name); });
  });
}

Hdf5File::AttrType Hdf5File::attr_type(const std::string& object, const std::string& name) const {
  return guarded(path_, "cannot read attribute " + name + " of " + object, [&] {
    return with_object(impl_->file, object, [&](H5::H5Object& o) {
      switch (o.openAttribute(name).getTypeClass()) {
        case H5T_STRING: return AttrType::string;
        case H5T_INTEGER: return AttrType::integer;
        case H5T_FLOAT: return AttrType::real;
        default: return AttrType::other;
      }
    });
  });
}

std::string Hdf5File::attr_string(const std::string& object, const std::string& name) const {
  return guarded(path_, "cannot read attribute " + name + " of " + object, [&] {
    return with_object(impl_->file, object, [&](H5::H5Object& o) {
      H5::Attribute a = o.openAttribute(name);
      if (a.getTypeClass() != H5T_STRING) throw H5::AttributeIException("", "it holds another type of value than the string attnlab writes there: the file is damaged or was changed by another program");
      const std::size_t width = checked_fixed_width(a.getDataType());
      if (a.getSpace().getSimpleExtentNpoints() != 1) throw H5::AttributeIException("", "not a single string");
      std::vector<char> buffer(width + 1, '\0');  // + 1: a string written without a NUL (NULLPAD) keeps its last byte
      a.read(fixed_string(width + 1, a.getStrType().getCset()), buffer.data());
      return std::string(buffer.data(), strnlen(buffer.data(), width));
    });
  });
}

double Hdf5File::attr_double(const std::string& object, const std::string& name) const {
  return guarded(path_, "cannot read attribute " + name + " of " + object, [&] {
    return with_object(impl_->file, object, [&](H5::H5Object& o) {
      double v = 0;
      o.openAttribute(name).read(H5::PredType::NATIVE_DOUBLE, &v);
      return v;
    });
  });
}

long Hdf5File::attr_long(const std::string& object, const std::string& name) const {
  return guarded(path_, "cannot read attribute " + name + " of " + object, [&] {
    return with_object(impl_->file, object, [&](H5::H5Object& o) {
      long v = 0;
      o.openAttribute(name).read(H5::PredType::NATIVE_LONG, &v);
      return v;
    });
  });
}

std::size_t Hdf5File::attr_count(const std::string& object, const std::string& name, std::size_t least, std::size_t most) const {
  const long v = attr_long(object, name);
  if (v < 0 || static_cast<unsigned long>(v) < least || static_cast<unsigned long>(v) > most)
    throw FileError(path_ + ": attribute " + name + " of " + object + " is " + std::to_string(v) + "; a results file holds " +
                    std::to_string(least) + " to " +
                    std::to_string(most) + " there (the file is damaged)");
  return static_cast<std::size_t>(v);
}

std::vector<std::string> Hdf5File::attr_names(const std::string& object) const {
  return guarded(path_, "cannot list attributes of " + object, [&] {
    return with_object(impl_->file, object, [&](H5::H5Object& o) {
      std::vector<std::string> names;
      for (int i = 0; i < o.getNumAttrs(); ++i) names.push_back(o.openAttribute(static_cast<unsigned>(i)).getName());
      std::sort(names.begin(), names.end());
      return names;
    });
  });
}

}  // namespace attn
