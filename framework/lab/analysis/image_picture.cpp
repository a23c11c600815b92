#include "lab/analysis/image_picture.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "lab/analysis/png.hpp"
#include "lab/analysis/svg.hpp"
#include "lab/results/summary.hpp"

namespace attn {
namespace {

std::size_t grid_side(const AttentionMap& map) {
  return static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(map.weights.shape()[3] - 1))));
}

// <cls>'s weights in one layer, over itself (entry 0) then the patches: one head's, or the heads' mean.
std::vector<double> cls_row(const AttentionMap& map, std::size_t layer, std::optional<std::size_t> head) {
  const std::size_t heads = map.weights.shape()[1], keys = map.weights.shape()[3];
  std::vector<double> out(keys, 0.0);
  for (std::size_t h = 0; h < heads; ++h)
    if (!head || *head == h)
      for (std::size_t k = 0; k < keys; ++k) out[k] += map.weights(layer, h, 0, k) / (head ? 1.0 : static_cast<double>(heads));
  return out;
}

}  // namespace

bool over_patches(const AttentionMap& map) {
  if (map.weights.dimension() != 4 || map.keys.empty() || map.keys[0] != "<cls>" || map.weights.shape()[3] < 2) return false;
  const std::size_t side = grid_side(map);
  return side * side + 1 == map.weights.shape()[3];
}

std::vector<std::string> image_attention_pictures(const Tensor& image, const AttentionMap& map, const AttentionView& view) {
  const std::size_t h = image.shape()[0], w = image.shape()[1], side = grid_side(map);
  std::vector<std::uint8_t> bytes(h * w);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(std::lround(std::clamp(image.data()[i], 0.0f, 1.0f) * 255.0f));
  const std::string png = base64(grey_png(bytes, w, h));
  const std::size_t layers = map.weights.shape()[0], heads = map.weights.shape()[1];
  std::vector<std::string> out;
  for (std::size_t l = 0; l < layers; ++l) {
    if (view.layer && *view.layer != l) continue;
    std::vector<std::optional<std::size_t>> shown;
    if (view.average || heads == 1) shown.push_back(heads == 1 ? std::optional<std::size_t>(0) : std::nullopt);
    else
      for (std::size_t hd = 0; hd < heads; ++hd)
        if (!view.head || *view.head == hd) shown.push_back(hd);
    for (const auto& head : shown) {
      svg::ImageOverlay o;
      o.png_base64 = png;
      o.grid_rows = o.grid_cols = side;
      const std::vector<double> row = cls_row(map, l, head);
      o.weights.assign(row.begin() + 1, row.end());
      o.vmax = *std::max_element(o.weights.begin(), o.weights.end());
      o.title = !view.composed.empty() ? "<cls> " + view.composed + ", heads' " + view.fusion
                : "<cls>, layer " + std::to_string(l) + (head ? (heads > 1 ? ", head " + std::to_string(*head) : "") : ", mean of " + std::to_string(heads) + " heads");
      o.caption = "patch max " + format_number(o.vmax) + ", <cls> " + format_number(row[0]);
      out.push_back(svg::image_overlay(o));
    }
  }
  return out;
}

}  // namespace attn
