#include "idx_file.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <zlib.h>

namespace attn {
namespace {

class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {
    if (!file_) throw std::runtime_error(path + ": cannot be opened");
  }
  ~GzFile() { gzclose(file_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  // Not gzip: the file is read as it is (its size then tells its length).
  bool direct() { return gzdirect(file_) == 1; }

  // Up to n bytes into out; how many were read (fewer at the end of the file).
  std::size_t read(void* out, std::size_t n) {
    const int got = gzread(file_, out, static_cast<unsigned>(n));
    if (got < 0) {
      int code = 0;
      const char* why = gzerror(file_, &code);
      throw std::runtime_error(path_ + ": the gzip data is damaged (" + (why ? why : "zlib error") + ")");
    }
    return static_cast<std::size_t>(got);
  }

 private:
  std::string path_;
  gzFile file_;
};

std::uint32_t big_endian(const unsigned char* b) {
  return (std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) | (std::uint32_t(b[2]) << 8) | std::uint32_t(b[3]);
}

std::string hex(const unsigned char* b) {
  static const char digits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int i = 0; i < 4; ++i) out += {digits[b[i] >> 4], digits[b[i] & 15]};
  return out;
}

}  // namespace

IdxArray read_idx_bytes(const std::string& path, std::size_t rank, std::size_t max_elements, std::size_t keep_rows) {
  GzFile file(path);
  unsigned char magic[4] = {0, 0, 0, 0};
  const std::string expected = rank == 1 ? "0x00000801" : "0x0000080" + std::to_string(rank);
  if (file.read(magic, 4) < 4 || magic[0] != 0 || magic[1] != 0 || magic[2] != 0x08 || magic[3] != rank)
    throw std::runtime_error(path + ": not an IDX file of " + std::to_string(rank) + "-dimensional bytes: magic number " +
                             hex(magic) + ", expected " + expected + " (" + (rank == 1 ? "labels" : "images") + ")");
  IdxArray out;
  std::size_t elements = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    unsigned char b[4];
    if (file.read(b, 4) < 4) throw std::runtime_error(path + ": the IDX header ends early (truncated file)");
    const std::size_t n = big_endian(b);
    if (n == 0) throw std::runtime_error(path + ": size " + std::to_string(i) + " of the IDX header is 0");
    if (n > max_elements / elements)
      throw std::runtime_error(path + ": the IDX header's sizes promise more than " + std::to_string(max_elements) +
                               " elements (an absurd size: a damaged or foreign file)");
    elements *= n;
    out.shape.push_back(n);
  }
  // Read in pieces, so a header promising more than the file holds allocates only what is there;
  // past the rows kept, the pieces are read into one buffer only to check the file's length.
  constexpr std::size_t piece = std::size_t(1) << 20;
  const std::size_t kept = std::min(elements, keep_rows < out.shape[0] ? keep_rows * (elements / out.shape[0]) : elements);
  std::error_code ec;
  const std::uint64_t header = 4 + 4 * rank, size = std::filesystem::file_size(path, ec);
  const bool sized = !ec && file.direct();  // a plain file: its length is known without reading past the rows kept
  const auto truncated = [&](std::uint64_t held) {
    return std::runtime_error(path + ": truncated: the header promises " + std::to_string(elements) + " bytes of data, the file holds " +
                              std::to_string(held));
  };
  while (out.data.size() < kept) {
    const std::size_t at = out.data.size(), want = std::min(piece, kept - at);
    out.data.resize(at + want);
    const std::size_t got = file.read(out.data.data() + at, want);
    out.data.resize(at + got);
    if (got < want) throw truncated(out.data.size());
  }
  if (!sized) {  // the rest is read only to check the file's length
    std::vector<std::uint8_t> skipped(std::min(piece, elements - kept));
    for (std::size_t done = kept; done < elements;) {
      const std::size_t want = std::min(skipped.size(), elements - done), got = file.read(skipped.data(), want);
      done += got;
      if (got < want) throw truncated(done);
    }
  }
  if (sized && size < header + elements) throw truncated(size - std::min(size, header));
  if (!sized && !ec && size >= 4) {  // gzip: its trailer's last 4 bytes count the data mod 2^32; junk after the stream changes them
    std::ifstream raw(path, std::ios::binary);
    unsigned char t[4] = {0, 0, 0, 0};
    raw.seekg(-4, std::ios::end);
    raw.read(reinterpret_cast<char*>(t), 4);
    const std::uint32_t counted = t[0] | (std::uint32_t(t[1]) << 8) | (std::uint32_t(t[2]) << 16) | (std::uint32_t(t[3]) << 24);
    if (raw && counted != static_cast<std::uint32_t>(header + elements))
      throw std::runtime_error(path + ": bytes follow its gzip data, or the data is damaged (the gzip trailer counts " + std::to_string(counted) +
                               " bytes, the IDX file is " + std::to_string(header + elements) + "): a damaged or foreign file");
  }
  unsigned char extra;
  if (sized ? size > header + elements : file.read(&extra, 1) != 0)
    throw std::runtime_error(path + ": goes on after the " + std::to_string(elements) + " bytes its IDX header promises (a damaged or foreign file)");
  return out;
}

}  // namespace attn
