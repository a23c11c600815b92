#include "lab/analysis/graph_picture.hpp"

#include <sstream>

#include "lab/analysis/graph_layout.hpp"
#include "lab/analysis/svg.hpp"

namespace attn {
namespace {

// "0 1 ? 1" -> {0, 1, -1, 1}: class numbers of a prediction or target text; -1 for others.
std::vector<int> class_numbers(const std::string& text) {
  std::istringstream in(text);
  std::vector<int> out;
  for (std::string w; in >> w;) out.push_back(!w.empty() && w.find_first_not_of("0123456789") == std::string::npos && w.size() < 6 ? std::stoi(w) : -1);
  return out;
}

}  // namespace

std::string graph_attention_picture(const Tensor& adjacency, const ExampleAttention& example, const AttentionMap& map,
                                    std::size_t layer, std::optional<std::size_t> head) {
  const std::size_t n = adjacency.shape()[0], heads = map.weights.shape()[1];
  std::vector<std::vector<bool>> joined(n, std::vector<bool>(n, false));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) joined[i][j] = i != j && adjacency(i, j) != 0.0f;
  svg::GraphDrawing g;
  g.positions = graph_layout(joined);
  g.labels = map.keys;
  g.labels.resize(n, "");
  g.classes = class_numbers(example.prediction);
  for (const int c : class_numbers(example.target)) g.ringed.push_back(c < 0);
  const auto weight = [&](std::size_t i, std::size_t j) {
    double total = 0.0;
    for (std::size_t h = 0; h < heads; ++h)
      if (!head || *head == h) total += map.weights(layer, h, i, j);
    return head ? total : total / static_cast<double>(heads);
  };
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (joined[i][j]) g.edges.push_back({i, j, (weight(i, j) + weight(j, i)) / 2.0});
  g.title = map.name + " attention, layer " + std::to_string(layer) +
            (head ? ", head " + std::to_string(*head) : heads > 1 ? ", mean of " + std::to_string(heads) + " heads" : "");
  g.legend = "edge width: attention; colour: predicted class; ring: labelled";
  return svg::graph(g);
}

}  // namespace attn
