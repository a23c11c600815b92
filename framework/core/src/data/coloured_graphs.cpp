// Dataset `coloured_graphs`: whole graphs to classify, one label each (graph classification,
// where `graph` labels the nodes of one graph). Each graph has n nodes (min_nodes..max_nodes),
// each node one of `colours` colours; its features are the colour, one-hot. Edges join nodes of
// different colours, each such pair with probability degree / (n - 1), and a node left without
// an edge gets one. The label says whether the colouring is proper:
//   proper    no edge joins two nodes of one colour
//   clash     exactly one edge does (added to a proper graph: half the graphs, at random)
// A node's colour alone and the colours of the whole set say nothing about the label (the
// colours are drawn the same way for both classes); only the edges do. So a model that sees
// the graph as a set of vectors is at chance, and one whose attention follows the edges (the
// adjacency as the mask) can find the clash: a node that attends to a neighbour of its own
// colour. The adjacency (VectorBatch::adjacency) is 1 on an edge, either direction, and has no
// self loops: a node attends to its neighbours, and its own vector reaches it by the residual.
// Options: min_nodes, max_nodes, colours, degree, num_train, num_valid. The splits are drawn from
// the run's seed, the probe set from a stream of its own (the same for every seed).
#include <algorithm>

#include "attnlab/data/dataset.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/footprint.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

struct ColouredGraph {
  std::vector<int> colour;           // per node
  std::vector<std::vector<bool>> edge;  // [n][n], symmetric
  bool clash = false;
};

class ColouredGraphSets final : public VectorSets {
 public:
  ColouredGraphSets(std::vector<ColouredGraph> graphs, std::size_t colours) : graphs_(std::move(graphs)), colours_(colours) {}
  std::size_t size() const override { return graphs_.size(); }
  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    std::size_t n = 1;
    for (std::size_t r : rows) n = std::max(n, graphs_[r].colour.size());
    VectorBatch b;
    b.vectors = xt::zeros<float>({rows.size(), n, colours_});
    b.adjacency = xt::zeros<int>({rows.size(), n, n});
    b.lens = IntTensor::from_shape({rows.size()});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const ColouredGraph& g = graphs_[rows[i]];
      b.lens(i) = static_cast<int>(g.colour.size());
      for (std::size_t u = 0; u < g.colour.size(); ++u) {
        b.vectors(i, u, static_cast<std::size_t>(g.colour[u])) = 1.0f;
        for (std::size_t v = 0; v < g.colour.size(); ++v) b.adjacency(i, u, v) = g.edge[u][v] ? 1 : 0;
      }
    }
    return b;
  }
  std::string describe(std::size_t row) const override {
    const ColouredGraph& g = graphs_[row];
    std::size_t edges = 0;
    for (std::size_t u = 0; u < g.colour.size(); ++u)
      for (std::size_t v = u + 1; v < g.colour.size(); ++v) edges += g.edge[u][v];
    std::string colours;
    for (int c : g.colour) colours += std::to_string(c);
    return "a graph of " + std::to_string(g.colour.size()) + " nodes (colours " + colours + ") and " + std::to_string(edges) + " edges";
  }

 private:
  std::vector<ColouredGraph> graphs_;
  std::size_t colours_;
};

class ColouredGraphs final : public DatasetSource {
 public:
  explicit ColouredGraphs(const DatasetArgs& a)
      : min_nodes_(a.options.get<std::size_t>("min_nodes", 8, 2, 256)),
        max_nodes_(a.options.get<std::size_t>("max_nodes", 12, 2, 256)),
        colours_(a.options.get<std::size_t>("colours", 3, 2, 64)),
        degree_(a.options.get<double>("degree", 2.0, 0.0, 256.0)),
        num_train_(a.options.get<std::size_t>("num_train", 2000, 1, 1000000)),
        num_valid_(a.options.get<std::size_t>("num_valid", 500, 1, 1000000)),
        train_where_(first_written(a.options, {"num_train", "max_nodes"})),
        valid_where_(first_written(a.options, {"num_valid", "max_nodes"})) {
    if (min_nodes_ > max_nodes_)
      throw SpecError(a.options.where("min_nodes"), "option 'min_nodes' (" + std::to_string(min_nodes_) + ") must not exceed 'max_nodes' (" +
                                                        std::to_string(max_nodes_) + ")");
    if (min_nodes_ <= colours_)
      throw SpecError(a.options.where("min_nodes"), "option 'min_nodes' (" + std::to_string(min_nodes_) + ") must exceed 'colours' (" +
                                                        std::to_string(colours_) + "), so that every graph has two nodes of one colour to clash");
  }

  // Per graph, at most: its colours, and its edge matrix (a bit per pair) in rows of their own.
  Footprint footprint() const override {
    const double n = static_cast<double>(max_nodes_);
    const double per_graph = sizeof(ColouredGraph) + n * sizeof(int) + n * (sizeof(std::vector<bool>) + n / 8.0 + 8.0);
    const auto part = [&](const char* name, std::size_t count, const std::string& where) {
      return MemoryUse{std::string("the ") + name + " split: " + std::to_string(count) + " graphs of up to " + std::to_string(max_nodes_) +
                           " nodes", per_graph * static_cast<double>(count), where};
    };
    return {part("training", num_train_, train_where_), part("validation", num_valid_, valid_where_)};
  }

  Data load(Rng& rng) const override {
    VectorData d;
    d.kind = InputKind::graph;
    d.dim = colours_;
    d.max_len = max_nodes_;
    d.classes = {"proper", "clash"};
    d.train = draw(num_train_, rng);
    d.valid = draw(num_valid_, rng);
    Rng probe_rng(probe_seed);
    d.probe = draw(probe_size, probe_rng);
    return d;
  }

 private:
  VectorSplit draw(std::size_t count, Rng& rng) const {
    std::vector<ColouredGraph> graphs;
    VectorSplit s;
    s.labels = IntTensor::from_shape({count});
    for (std::size_t i = 0; i < count; ++i) {
      graphs.push_back(graph(rng));
      s.labels(i) = graphs.back().clash ? 1 : 0;
    }
    s.sets = std::make_shared<ColouredGraphSets>(std::move(graphs), colours_);
    return s;
  }

  // A proper random graph, then (half the time) one edge between two nodes of one colour.
  ColouredGraph graph(Rng& rng) const {
    const std::size_t n = min_nodes_ + rng.below(max_nodes_ - min_nodes_ + 1);
    ColouredGraph g;
    for (std::size_t u = 0; u < n; ++u) g.colour.push_back(static_cast<int>(rng.below(colours_)));
    g.edge.assign(n, std::vector<bool>(n, false));
    const double p = std::min(1.0, degree_ / static_cast<double>(n - 1));
    std::vector<std::pair<std::size_t, std::size_t>> same;  // pairs of one colour
    for (std::size_t u = 0; u < n; ++u)
      for (std::size_t v = u + 1; v < n; ++v) {
        if (g.colour[u] == g.colour[v]) same.emplace_back(u, v);
        else if (static_cast<double>(rng.uniform()) < p) g.edge[u][v] = g.edge[v][u] = true;
      }
    for (std::size_t u = 0; u < n; ++u) join_if_alone(g, u, rng);
    g.clash = rng.below(2) == 1 && !same.empty();
    if (g.clash) {
      const auto [u, v] = same[rng.below(same.size())];
      g.edge[u][v] = g.edge[v][u] = true;
    }
    return g;
  }

  // A node without an edge is joined to a node of another colour (if there is one).
  static void join_if_alone(ColouredGraph& g, std::size_t u, Rng& rng) {
    const std::size_t n = g.colour.size();
    if (std::find(g.edge[u].begin(), g.edge[u].end(), true) != g.edge[u].end()) return;
    std::vector<std::size_t> others;
    for (std::size_t v = 0; v < n; ++v)
      if (g.colour[v] != g.colour[u]) others.push_back(v);
    if (others.empty()) return;
    const std::size_t v = others[rng.below(others.size())];
    g.edge[u][v] = g.edge[v][u] = true;
  }

  std::size_t min_nodes_, max_nodes_, colours_;
  double degree_;
  std::size_t num_train_, num_valid_;
  std::string train_where_, valid_where_;
};

}  // namespace

void register_dataset_coloured_graphs(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<ColouredGraphs>("coloured_graphs", "random graphs with coloured nodes, one label each: is the colouring proper or does an edge clash");
}

}  // namespace attn
