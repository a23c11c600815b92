#include "wav_file.hpp"

#include "attnlab/file_kind.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace attn {
namespace {

std::uint32_t le32(const std::string& b, std::size_t at) {
  return std::uint32_t(static_cast<unsigned char>(b[at])) | std::uint32_t(static_cast<unsigned char>(b[at + 1])) << 8 |
         std::uint32_t(static_cast<unsigned char>(b[at + 2])) << 16 | std::uint32_t(static_cast<unsigned char>(b[at + 3])) << 24;
}
std::uint16_t le16(const std::string& b, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) | static_cast<unsigned char>(b[at + 1]) << 8);
}

}  // namespace

Wav read_wav(const std::string& path) {
  constexpr std::uintmax_t max_bytes = std::uintmax_t(1) << 30;  // 6 hours of 22 kHz audio
  if (const std::string what = not_a_regular_file(path); !what.empty())  // a FIFO is never opened
    throw std::runtime_error(path + ": " + what + ", not a WAV file");
  std::error_code ec;
  if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > max_bytes)
    throw std::runtime_error(path + ": " + std::to_string(size) + " bytes, more than the 1 GiB a WAV file may have here");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be opened");
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (bytes.size() < 12 || bytes.compare(0, 4, "RIFF") != 0 || bytes.compare(8, 4, "WAVE") != 0)
    throw std::runtime_error(path + ": not a WAV file (no RIFF/WAVE header)");
  Wav wav;
  bool format = false;
  for (std::size_t at = 12; at + 8 <= bytes.size();) {
    const std::string id = bytes.substr(at, 4);
    const std::size_t size = le32(bytes, at + 4), body = at + 8;
    if (size > bytes.size() - body) throw std::runtime_error(path + ": the '" + id + "' chunk runs past the end of the file (truncated)");
    if (id == "fmt ") {
      if (size < 16 || le16(bytes, body) != 1 || le16(bytes, body + 2) != 1 || le16(bytes, body + 14) != 16)
        throw std::runtime_error(path + ": not 16-bit mono PCM (format " + std::to_string(size >= 16 ? le16(bytes, body) : 0) + ", " +
                                 std::to_string(size >= 16 ? le16(bytes, body + 2) : 0) + " channels, " +
                                 std::to_string(size >= 16 ? le16(bytes, body + 14) : 0) + " bits)");
      wav.sample_rate = le32(bytes, body + 4);
      format = true;
    } else if (id == "data") {
      if (!format) throw std::runtime_error(path + ": the data chunk comes before the 'fmt ' chunk");
      wav.samples.resize(size / 2);
      for (std::size_t i = 0; i < wav.samples.size(); ++i)
        wav.samples[i] = static_cast<float>(static_cast<std::int16_t>(le16(bytes, body + 2 * i))) / 32768.0f;
      if (wav.samples.empty()) throw std::runtime_error(path + ": holds no samples");
      return wav;
    }
    at = body + size + (size & 1);  // chunks are padded to an even size
  }
  throw std::runtime_error(path + ": no data chunk (truncated, or not audio)");
}

}  // namespace attn
