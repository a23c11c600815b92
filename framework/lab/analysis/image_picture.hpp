// An image run's attention laid over its image (vit): <cls>'s attention over the patches, one
// picture per layer and head (or the heads' mean), each patch tinted by its weight, the most
// attended patch of each picture the most opaque. The other maps of attnlab are heatmaps
// (pictures.hpp), a graph's are drawn on the graph (graph_picture.hpp).
#pragma once

#include <string>
#include <vector>

#include "attnlab/models/model.hpp"
#include "lab/analysis/pictures.hpp"

namespace attn {

// Whether `map` is attention of a <cls> over an image's patches (its first key is <cls>, the
// others a square grid).
bool over_patches(const AttentionMap& map);
// image [H, W] in [0, 1]; map.weights [layer, head, n, n] with n = 1 + patches.
std::vector<std::string> image_attention_pictures(const Tensor& image, const AttentionMap& map, const AttentionView& view);

}  // namespace attn
