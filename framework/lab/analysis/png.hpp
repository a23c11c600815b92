// A grey image as a PNG file's bytes (8 bits a pixel, no filter, zlib-compressed), and base64
// for embedding it in an SVG as a data: address: the pictures lay attention over images.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

std::string grey_png(const std::vector<std::uint8_t>& pixels, std::size_t width, std::size_t height);
std::string base64(const std::string& bytes);

}  // namespace attn
