#include "log_mel.hpp"

#include <cmath>
#include <complex>
#include <mutex>

#include <fftw3.h>

namespace attn {
namespace {

// FFTW's planner is not reentrant: plans are made and destroyed one at a time (runs load their
// data on several threads). Executing a plan on new arrays (fftwf_execute_dft_r2c) is safe.
std::mutex& planner() {
  static std::mutex m;
  return m;
}

double mel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double hz(double m) { return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0); }

}  // namespace

LogMel::LogMel(unsigned sample_rate, std::size_t n_fft, std::size_t hop, std::size_t mels)
    : rate_(sample_rate), n_fft_(n_fft), hop_(hop), mels_(mels), window_(n_fft), filters_(mels, std::vector<float>(n_fft / 2 + 1, 0.0f)) {
  const double pi = std::acos(-1.0);
  for (std::size_t i = 0; i < n_fft; ++i) window_[i] = static_cast<float>(0.5 - 0.5 * std::cos(2 * pi * static_cast<double>(i) / static_cast<double>(n_fft)));
  const double top = mel(sample_rate / 2.0);
  std::vector<double> edges(mels + 2);  // filter m rises from edges[m] to edges[m + 1], falls to edges[m + 2] (Hz)
  for (std::size_t m = 0; m < edges.size(); ++m) edges[m] = hz(top * static_cast<double>(m) / static_cast<double>(mels + 1));
  for (std::size_t m = 0; m < mels; ++m)
    for (std::size_t k = 0; k <= n_fft / 2; ++k) {
      const double f = static_cast<double>(k) * sample_rate / static_cast<double>(n_fft);
      const double up = (f - edges[m]) / (edges[m + 1] - edges[m]), down = (edges[m + 2] - f) / (edges[m + 2] - edges[m + 1]);
      filters_[m][k] = static_cast<float>(std::max(0.0, std::min(up, down)));
    }
  const std::lock_guard<std::mutex> lock(planner());
  float* in = fftwf_alloc_real(n_fft);
  fftwf_complex* out = fftwf_alloc_complex(n_fft / 2 + 1);
  plan_ = fftwf_plan_dft_r2c_1d(static_cast<int>(n_fft), in, out, FFTW_ESTIMATE);
  fftwf_free(in);
  fftwf_free(out);
}

LogMel::~LogMel() {
  const std::lock_guard<std::mutex> lock(planner());
  fftwf_destroy_plan(static_cast<fftwf_plan>(plan_));
}

double LogMel::seconds_per_frame() const { return static_cast<double>(hop_) / rate_; }

Tensor LogMel::operator()(const std::vector<float>& samples) const {
  const std::size_t frames = samples.size() <= n_fft_ ? 1 : 1 + (samples.size() - n_fft_) / hop_, bins = n_fft_ / 2 + 1;
  Tensor out = Tensor::from_shape({frames, mels_});
  float* in = fftwf_alloc_real(n_fft_);
  fftwf_complex* spectrum = fftwf_alloc_complex(bins);
  std::vector<float> power(bins);
  for (std::size_t t = 0; t < frames; ++t) {
    for (std::size_t i = 0; i < n_fft_; ++i) {
      const std::size_t at = t * hop_ + i;
      in[i] = at < samples.size() ? samples[at] * window_[i] : 0.0f;
    }
    fftwf_execute_dft_r2c(static_cast<fftwf_plan>(plan_), in, spectrum);
    for (std::size_t k = 0; k < bins; ++k) power[k] = spectrum[k][0] * spectrum[k][0] + spectrum[k][1] * spectrum[k][1];
    for (std::size_t m = 0; m < mels_; ++m) {
      double total = 0.0;
      for (std::size_t k = 0; k < bins; ++k) total += static_cast<double>(filters_[m][k]) * power[k];
      out(t, m) = static_cast<float>(std::log(total + 1e-6));
    }
  }
  fftwf_free(in);
  fftwf_free(spectrum);
  return out;
}

}  // namespace attn
