#include "image_resize.hpp"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

constexpr int precision_bits = 32 - 8 - 2;  // PIL's, for 8-bit images

// PIL's precompute_coeffs with its bilinear filter, then normalize_coeffs_8bpc.
std::vector<ImageResize::Weights> taps(std::size_t in_size, std::size_t out_size) {
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  const double filter_scale = std::max(scale, 1.0), support = filter_scale;  // bilinear's support is 1
  std::vector<ImageResize::Weights> out(out_size);
  for (std::size_t o = 0; o < out_size; ++o) {
    const double center = (static_cast<double>(o) + 0.5) * scale;
    const int first = std::max(0, static_cast<int>(center - support + 0.5));
    const int end = std::min(static_cast<int>(in_size), static_cast<int>(center + support + 0.5));
    std::vector<double> w;
    double total = 0.0;
    for (int x = first; x < end; ++x) {
      const double t = std::abs((x - center + 0.5) / filter_scale);
      w.push_back(t < 1.0 ? 1.0 - t : 0.0);
      total += w.back();
    }
    out[o].first = static_cast<std::size_t>(first);
    for (double v : w) {
      const double k = (total != 0.0 ? v / total : v) * (1 << precision_bits);
      out[o].k.push_back(static_cast<std::int32_t>(k < 0 ? k - 0.5 : k + 0.5));
    }
  }
  return out;
}

std::uint8_t clip8(std::int64_t v) {
  return static_cast<std::uint8_t>(std::clamp<std::int64_t>(v >> precision_bits, 0, 255));
}

// One pass: out[line][o] from in[line][...] along an axis read with `stride`.
std::uint8_t resampled(const std::uint8_t* in, std::size_t stride, const ImageResize::Weights& w) {
  std::int64_t acc = std::int64_t(1) << (precision_bits - 1);
  for (std::size_t i = 0; i < w.k.size(); ++i) acc += std::int64_t(in[(w.first + i) * stride]) * w.k[i];
  return clip8(acc);
}

}  // namespace

ImageResize::ImageResize(std::size_t in_h, std::size_t in_w, std::size_t out_h, std::size_t out_w)
    : in_h_(in_h), in_w_(in_w), out_h_(out_h), out_w_(out_w), rows_(taps(in_h, out_h)), cols_(taps(in_w, out_w)) {}

void ImageResize::operator()(const std::uint8_t* in, std::uint8_t* out) const {
  if (in_h_ == out_h_ && in_w_ == out_w_) {
    std::copy_n(in, in_h_ * in_w_, out);
    return;
  }
  std::vector<std::uint8_t> wide(in_h_ * out_w_);  // along each row first, as PIL
  for (std::size_t y = 0; y < in_h_; ++y)
    for (std::size_t x = 0; x < out_w_; ++x) wide[y * out_w_ + x] = resampled(in + y * in_w_, 1, cols_[x]);
  for (std::size_t y = 0; y < out_h_; ++y)
    for (std::size_t x = 0; x < out_w_; ++x) out[y * out_w_ + x] = resampled(wide.data() + x, out_w_, rows_[y]);
}

}  // namespace attn
