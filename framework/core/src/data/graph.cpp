// Dataset `graph`: one graph whose nodes are to be classified from a few labelled ones (the
// transductive setting of GAT, Velickovic et al. 2018). A graph reaches a model as one set of
// vectors, its nodes' features, with its adjacency as the structure (VectorBatch::adjacency:
// 1 on an edge, either direction, and on each node's own loop, which graph attention includes).
// Files (text, '#' starts a comment):
//   edges     "u v [weight]" a line: an undirected edge (the weight is read and not used)
//   labels    "node class" a line: every node 0..n-1 once; n is the number of nodes
//   features  "node f_1 ... f_d" a line, every node once (option; default: identity, the
//             one-hot vector of each node, d = n)
// The training split is the graph with the labels of `train_nodes` only; the validation split
// is the same graph with the labels of every other node. Default data: Zachary's karate club
// (datasets/karate-club/).
#include <algorithm>
#include <map>
#include <sstream>
#include <set>

#include "attnlab/data/dataset.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/options.hpp"
#include "attnlab/registry.hpp"
#include "table_file.hpp"

namespace attn {
namespace {

constexpr std::size_t max_nodes = 4096, max_classes = 1000;

class GraphSets final : public VectorSets {
 public:
  GraphSets(Tensor features, IntTensor adjacency, std::size_t edges)
      : features_(std::move(features)), adjacency_(std::move(adjacency)), edges_(edges) {}
  std::size_t size() const override { return 1; }
  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    const std::size_t n = features_.shape()[0], d = features_.shape()[1];
    VectorBatch b;
    b.vectors = Tensor::from_shape({rows.size(), n, d});
    b.adjacency = IntTensor::from_shape({rows.size(), n, n});
    b.lens = IntTensor::from_shape({rows.size()});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::copy(features_.begin(), features_.end(), b.vectors.data() + i * n * d);
      std::copy(adjacency_.begin(), adjacency_.end(), b.adjacency.data() + i * n * n);
      b.lens(i) = static_cast<int>(n);
    }
    return b;
  }
  std::string describe(std::size_t) const override {
    return "a graph of " + std::to_string(features_.shape()[0]) + " nodes and " + std::to_string(edges_) + " edges";
  }

 private:
  Tensor features_;
  IntTensor adjacency_;
  std::size_t edges_;
};

// "[0, 33]" (a spec's list, as options hold it) or "0 33" -> its items.
std::vector<std::string> list_items(std::string text) {
  for (char& c : text)
    if (c == '[' || c == ']' || c == ',') c = ' ';
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

class Graph final : public DatasetSource {
 public:
  explicit Graph(const DatasetArgs& a)
      : edges_path_(resolve_data_path(a.options.get<std::string>("edges", "datasets/karate-club/edges.txt"), a.base_dir)),
        labels_path_(resolve_data_path(a.options.get<std::string>("labels", "datasets/karate-club/clubs.txt"), a.base_dir)),
        features_(a.options.get<std::string>("features", "identity")),
        train_text_(a.options.get<std::string>("train_nodes", "")),
        edges_where_(a.options.where("edges")), labels_where_(a.options.where("labels")),
        features_where_(a.options.where("features")), train_where_(a.options.where("train_nodes")) {
    if (features_ != "identity") features_ = resolve_data_path(features_, a.base_dir);
  }

  Data load(Rng&) const override {
    const std::vector<int> labels = read_labels();
    const std::size_t n = labels.size();
    std::size_t edges = 0;
    IntTensor adjacency = read_edges(n, edges);
    VectorData d;
    d.kind = InputKind::graph;
    d.max_len = n;
    const Tensor features = features_ == "identity" ? Tensor(xt::eye<float>(n)) : read_features(n);
    d.dim = features.shape()[1];
    const int classes = 1 + *std::max_element(labels.begin(), labels.end());
    for (int c = 0; c < classes; ++c) d.classes.push_back(std::to_string(c));
    const std::vector<std::size_t> train = train_nodes(labels);
    d.train.labels = xt::full_like(IntTensor::from_shape({1, n}), -1);
    d.valid.labels = IntTensor::from_shape({1, n});
    for (std::size_t i = 0; i < n; ++i) d.valid.labels(0, i) = labels[i];
    for (std::size_t i : train) d.train.labels(0, i) = labels[i], d.valid.labels(0, i) = -1;
    d.train.sets = d.valid.sets = std::make_shared<GraphSets>(features, std::move(adjacency), edges);
    return d;
  }

 private:
  std::vector<int> read_labels() const {
    std::map<std::size_t, std::pair<int, std::size_t>> by_node;  // node -> (class, line)
    for (const TableRow& row : read_table(labels_path_, "labels file", "labels", labels_where_)) {
      const std::string at = row_place(labels_path_, row);
      const auto node = parse_index(row.fields[0], max_nodes);
      const auto label = row.fields.size() == 2 ? parse_index(row.fields[1], max_classes) : std::nullopt;
      if (row.fields.size() != 2 || !node || !label)
        throw SpecError(labels_where_, at + "expected \"node class\", a node number below " + std::to_string(max_nodes) +
                                           " and a class number below " + std::to_string(max_classes) + "; got \"" + row.text + "\"");
      if (const auto it = by_node.find(*node); it != by_node.end())
        throw SpecError(labels_where_, at + "node " + std::to_string(*node) + " is labelled twice (first on line " +
                                           std::to_string(it->second.second) + ")");
      by_node[*node] = {static_cast<int>(*label), row.line};
    }
    if (by_node.empty()) throw SpecError(labels_where_, "labels file '" + labels_path_ + "' labels no node");
    std::vector<int> labels;
    for (const auto& [node, entry] : by_node) {
      if (node != labels.size())
        throw SpecError(labels_where_, labels_path_ + ": node " + std::to_string(labels.size()) +
                                           " has no label; the nodes are numbered 0 to n - 1, each labelled once");
      labels.push_back(entry.first);
    }
    return labels;
  }

  IntTensor read_edges(std::size_t n, std::size_t& edges) const {
    IntTensor adjacency = xt::zeros<int>({std::size_t(1), n, n});
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> seen;  // (min, max) -> line
    for (const TableRow& row : read_table(edges_path_, "edges file", "edges", edges_where_)) {
      const std::string at = row_place(edges_path_, row);
      if (row.fields.size() < 2 || row.fields.size() > 3 || (row.fields.size() == 3 && !parse_option<float>(row.fields[2])))
        throw SpecError(edges_where_, at + "expected \"node node [weight]\", got \"" + row.text + "\"");
      std::size_t ends[2];
      for (int i = 0; i < 2; ++i) {
        const auto v = parse_index(row.fields[static_cast<std::size_t>(i)], n);
        if (!v)
          throw SpecError(edges_where_, at + "node '" + row.fields[static_cast<std::size_t>(i)] + "' is not a node of the graph: the labels file ('" +
                                            labels_path_ + "') numbers them 0 to " + std::to_string(n - 1));
        ends[i] = *v;
      }
      if (ends[0] == ends[1])
        throw SpecError(edges_where_, at + "a self edge " + std::to_string(ends[0]) + " " + std::to_string(ends[1]) +
                                          " (every node attends to itself already: leave it out)");
      const auto key = std::minmax(ends[0], ends[1]);
      if (const auto it = seen.find(key); it != seen.end())
        throw SpecError(edges_where_, at + "the edge " + std::to_string(key.first) + " " + std::to_string(key.second) +
                                          " is given twice (first on line " + std::to_string(it->second) + "); edges are undirected");
      seen[key] = row.line;
      adjacency(0, ends[0], ends[1]) = adjacency(0, ends[1], ends[0]) = 1;
    }
    for (std::size_t i = 0; i < n; ++i) adjacency(0, i, i) = 1;
    edges = seen.size();
    return adjacency;
  }

  // One line "node f_1 ... f_d" per node, in any order: each line is checked where it is, then
  // that no node was left out.
  Tensor read_features(std::size_t n) const {
    const std::vector<TableRow> rows = read_table(features_, "features file", "features", features_where_);
    if (rows.empty()) throw SpecError(features_where_, "features file '" + features_ + "' holds no feature line");
    const std::size_t d = std::max<std::size_t>(rows[0].fields.size(), 2) - 1;
    Tensor out = xt::zeros<float>({n, d});
    std::vector<std::size_t> line_of(n, 0);
    for (const TableRow& row : rows) {
      const std::string at = row_place(features_, row);
      const auto node = parse_index(row.fields[0], n);
      if (row.fields.size() != d + 1 || !node)
        throw SpecError(features_where_, at + "expected \"node f_1 ... f_" + std::to_string(d) + "\" (as the first line), a node 0 to " +
                                             std::to_string(n - 1) + " of the labels file; got \"" + row.text + "\"");
      if (line_of[*node])
        throw SpecError(features_where_, at + "node " + std::to_string(*node) + " has features twice (first on line " + std::to_string(line_of[*node]) + ")");
      line_of[*node] = row.line;
      for (std::size_t j = 0; j < d; ++j) {
        const auto v = parse_option<float>(row.fields[j + 1]);
        if (!v) throw SpecError(features_where_, at + "feature " + std::to_string(j + 1) + " ('" + row.fields[j + 1] + "') " + unreadable_float(row.fields[j + 1]));
        out(*node, j) = *v;
      }
    }
    if (const auto missing = std::find(line_of.begin(), line_of.end(), 0); missing != line_of.end())
      throw SpecError(features_where_, features_ + ": node " + std::to_string(missing - line_of.begin()) + " has no feature line; each of the " +
                                           std::to_string(n) + " nodes of the labels file needs one");
    return out;
  }

  // The nodes whose labels train: option train_nodes, else the first node of each class.
  std::vector<std::size_t> train_nodes(const std::vector<int>& labels) const {
    std::vector<std::size_t> out;
    if (train_text_.empty()) {
      std::set<int> classes;
      for (std::size_t i = 0; i < labels.size(); ++i)
        if (classes.insert(labels[i]).second) out.push_back(i);
      return out;
    }
    for (const std::string& item : list_items(train_text_)) {
      const auto v = parse_index(item, labels.size());
      if (!v)
        throw SpecError(train_where_, "option 'train_nodes': '" + item + "' is not a node of the graph (0 to " + std::to_string(labels.size() - 1) + ")");
      if (std::find(out.begin(), out.end(), *v) != out.end())
        throw SpecError(train_where_, "option 'train_nodes' names node " + item + " twice");
      out.push_back(*v);
    }
    if (out.empty()) throw SpecError(train_where_, "option 'train_nodes' names no node: at least one node must be labelled for training");
    if (out.size() == labels.size())
      throw SpecError(train_where_, "option 'train_nodes' names every node: none is left to validate on");
    return out;
  }

  std::string edges_path_, labels_path_, features_, train_text_;
  std::string edges_where_, labels_where_, features_where_, train_where_;
};

}  // namespace

void register_dataset_graph(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<Graph>("graph", "one graph (edges, node labels, node features; default Zachary's karate club): classify nodes from a few labelled ones");
}

}  // namespace attn
