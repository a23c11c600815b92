// IDX files (the MNIST format, also Fashion-MNIST's): a big-endian header, then the data.
//   bytes 0-1: 0 0;  byte 2: the element type (0x08 = unsigned byte);  byte 3: the rank r
//   r sizes, each a big-endian uint32;  then prod(sizes) elements, row-major
// Read gzipped or plain (zlib's gzread reads both). Every problem is a std::runtime_error
// naming the file and what is wrong: a wrong magic number, a type other than bytes, another
// rank than expected, a size of 0 or absurdly large, a file that ends early or goes on after
// its data, gzip data that is damaged.
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

namespace attn {

struct IdxArray {
  std::vector<std::size_t> shape;
  std::vector<std::uint8_t> data;  // prod(shape) bytes, or those of the rows kept
};

// The IDX array of unsigned bytes in `path`, which must have rank `rank`; `max_elements`
// bounds prod(shape) (a header promising more is refused before anything is allocated). Only the
// first `keep_rows` rows (along the first size) are kept in `data`; the rest is read to check
// that the file is whole, and not kept (`shape` is the file's).
IdxArray read_idx_bytes(const std::string& path, std::size_t rank, std::size_t max_elements, std::size_t keep_rows = SIZE_MAX);

}  // namespace attn
