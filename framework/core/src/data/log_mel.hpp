// Log-mel frames of a waveform, the usual input of speech models:
//   frame t: samples [t hop, t hop + n_fft), times a Hann window;  X = FFT(frame) (FFTW)
//   power |X_k|^2;  mel_m = sum_k F_mk |X_k|^2 with F triangular filters evenly spaced on the
//   mel scale m(f) = 2595 log10(1 + f / 700) from 0 to sample_rate / 2;  feature log(mel_m + 1e-6)
// A waveform shorter than one frame gives one frame (zero-padded).
#pragma once

#include <vector>

#include "attnlab/tensor.hpp"

namespace attn {

class LogMel {
 public:
  LogMel(unsigned sample_rate, std::size_t n_fft, std::size_t hop, std::size_t mels);
  ~LogMel();
  LogMel(const LogMel&) = delete;
  LogMel& operator=(const LogMel&) = delete;
  Tensor operator()(const std::vector<float>& samples) const;  // [frames, mels]
  double seconds_per_frame() const;

 private:
  unsigned rate_;
  std::size_t n_fft_, hop_, mels_;
  std::vector<float> window_;
  std::vector<std::vector<float>> filters_;  // [mels][n_fft / 2 + 1]
  void* plan_;                                // fftwf_plan
};

}  // namespace attn
