// Resizing 8-bit grey images exactly as torchvision's Resize does on the PIL images d2l's
// Fashion-MNIST loader gives it (PIL's bilinear resampling, 8 bits per pixel):
//   out(y) = sum_x k_y(x) in(x),  k_y(x) proportional to max(0, 1 - |x + 0.5 - c_y| / s),
//   c_y = (y + 0.5) in_size / out_size,  s = max(1, in_size / out_size)
// the weights normalised to sum 1 and held as fixed-point integers (22 fractional bits), one
// pass along rows then one along columns, each rounded and clamped to 0..255.
#pragma once

#include <cstdint>
#include <vector>

namespace attn {

// A precomputed resize from in_h x in_w to out_h x out_w pixels, applied to many images.
class ImageResize {
 public:
  ImageResize(std::size_t in_h, std::size_t in_w, std::size_t out_h, std::size_t out_w);
  // in: in_h * in_w bytes, row-major -> out: out_h * out_w bytes.
  void operator()(const std::uint8_t* in, std::uint8_t* out) const;

  struct Weights {  // one output pixel's taps along one axis
    std::size_t first = 0;
    std::vector<std::int32_t> k;
  };

 private:
  std::size_t in_h_, in_w_, out_h_, out_w_;
  std::vector<Weights> rows_, cols_;
};

}  // namespace attn
