// Where to draw a graph's nodes: a force-directed layout (Fruchterman & Reingold 1991) from a
// fixed start (the nodes on a circle), so the same graph is drawn the same way every time.
//   repulsion between every pair k^2 / d, attraction along each edge d^2 / k, k = sqrt(1 / n),
//   300 steps whose largest move cools linearly from 0.1 to 0; positions end in [0, 1]^2.
#pragma once

#include <utility>
#include <vector>

namespace attn {

// adjacency: n x n, nonzero where two nodes are joined (the diagonal is ignored).
std::vector<std::pair<double, double>> graph_layout(const std::vector<std::vector<bool>>& adjacency);

}  // namespace attn
