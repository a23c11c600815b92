// WAV files of 16-bit PCM, mono (what espeak-ng writes): the RIFF header's "fmt " chunk, then
// the "data" chunk; other chunks are skipped. Every problem is a std::runtime_error naming the
// file: not RIFF/WAVE, another encoding (not PCM, not 16 bits, not mono), a chunk that runs past
// the end (a truncated file), no data, a file over 1 GiB.
#pragma once

#include <string>
#include <vector>

namespace attn {

struct Wav {
  unsigned sample_rate = 0;
  std::vector<float> samples;  // in [-1, 1)
};

Wav read_wav(const std::string& path);

}  // namespace attn
