// A graph run's attention drawn on its graph (gat): nodes where a force-directed layout puts
// them, coloured by predicted class and ringed when labelled for training; each edge as wide as
// the attention across it, (alpha_ij + alpha_ji) / 2, of one layer and head or the heads'
// mean. The rest of attnlab's attention pictures are heatmaps (pictures.hpp).
#pragma once

#include <optional>
#include <string>

#include "attnlab/models/model.hpp"

namespace attn {

// adjacency [n, n] (nonzero: an edge); map.weights [layer, head, n, n].
std::string graph_attention_picture(const Tensor& adjacency, const ExampleAttention& example, const AttentionMap& map,
                                    std::size_t layer, std::optional<std::size_t> head);

}  // namespace attn
