// The attention part of the results format (layout.hpp): recorded maps, attention metrics per
// head, their history over epochs and the snapshots of the maps.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "lab/results/layout.hpp"

namespace attn::layout {
namespace {

Tensor positions(const std::vector<float>& v) {
  Tensor t = Tensor::from_shape({v.size()});
  std::copy(v.begin(), v.end(), t.begin());
  return t;
}

std::vector<float> floats(const Tensor& t) { return {t.begin(), t.end()}; }

void write_map(Hdf5File& f, const std::string& group, const AttentionMap& m) {
  f.write(group + "/weights", m.weights);
  describe(f, group + "/weights", "layer,head,query,key", "probability",
           "attention weights of each query over the keys (the normalizer's output)");
  f.write(group + "/queries", m.queries);
  describe(f, group + "/queries", "query", "token", "label of each query row (predicted token, or x)");
  f.write(group + "/keys", m.keys);
  describe(f, group + "/keys", "key", "token", "label of each key column (source token, or x); <pad> = padding");
  if (!m.query_positions.empty()) f.write(group + "/query_positions", positions(m.query_positions));
  if (!m.key_positions.empty()) f.write(group + "/key_positions", positions(m.key_positions));
  if (!m.gold_keys.empty()) {
    IntTensor gold = IntTensor::from_shape({m.gold_keys.size()});
    std::copy(m.gold_keys.begin(), m.gold_keys.end(), gold.begin());
    f.write(group + "/gold_keys", gold);
    describe(f, group + "/gold_keys", "query", "key index", "the key each query should attend by the task's alignment; -1: none");
  }
}

AttentionMap read_map(const Hdf5File& f, const std::string& group, const std::string& name) {
  AttentionMap m;
  m.name = name;
  m.weights = f.read(group + "/weights");
  m.queries = f.read_strings(group + "/queries");
  m.keys = f.read_strings(group + "/keys");
  if (f.exists(group + "/query_positions")) m.query_positions = floats(f.read(group + "/query_positions"));
  if (f.exists(group + "/key_positions")) m.key_positions = floats(f.read(group + "/key_positions"));
  if (f.exists(group + "/gold_keys"))
    for (double g : f.read_doubles(group + "/gold_keys")) m.gold_keys.push_back(static_cast<int>(g));
  return m;
}

// What a metric's values count (docs/concepts/measuring-attention.md).
std::string unit_of(const std::string& metric) {
  return metric == "effective_keys" ? "keys" : metric == "effective_width" ? "x (the keys' positions)" : "fraction";
}

// The [layer, head] values of one metric, as a tensor (NaN for a head without rows).
Tensor head_grid(const MapMetrics& m, const std::string& metric) {
  Tensor t = Tensor::from_shape({m.layers, m.heads});
  const std::vector<double>& v = m.values.at(metric);
  std::transform(v.begin(), v.end(), t.begin(), [](double x) { return static_cast<float>(x); });
  return t;
}

template <class Metrics>  // std::vector<MapMetrics>, const or not
auto find_map(Metrics& metrics, const std::string& map) -> decltype(&metrics[0]) {
  const auto it = std::find_if(metrics.begin(), metrics.end(), [&](const MapMetrics& m) { return m.map == map; });
  return it == metrics.end() ? nullptr : &*it;
}

}  // namespace

void describe(Hdf5File& f, const std::string& path, const std::string& dims, const std::string& units,
              const std::string& description) {
  f.set_attr(path, "dims", dims);
  f.set_attr(path, "units", units);
  f.set_attr(path, "description", description);
}

void write_example(Hdf5File& f, const std::string& group, const ExampleAttention& ex) {
  f.create_group(group);
  f.set_attr(group, "example", static_cast<long>(ex.example));
  f.set_attr(group, "source", ex.source);
  f.set_attr(group, "target", ex.target);
  f.set_attr(group, "prediction", ex.prediction);
  for (const AttentionMap& m : ex.maps) write_map(f, group + "/" + m.name, m);
}

ExampleAttention read_example(const Hdf5File& f, const std::string& group) {
  ExampleAttention ex;
  for (const std::string& name : f.children(group)) ex.maps.push_back(read_map(f, group + "/" + name, name));
  if (f.has_attr(group, "example")) ex.example = static_cast<std::size_t>(f.attr_long(group, "example"));
  for (auto [field, name] : {std::pair{&ex.source, "source"}, {&ex.target, "target"}, {&ex.prediction, "prediction"}})
    if (f.has_attr(group, name)) *field = f.attr_string(group, name);
  return ex;
}

void write_attention_metrics(Hdf5File& f, const std::string& group, const std::vector<MapMetrics>& metrics) {
  for (const MapMetrics& m : metrics)
    for (const auto& [metric, values] : m.values) {
      const std::string path = group + "/" + m.map + "/" + metric;
      f.write(path, head_grid(m, metric));
      describe(f, path, "layer,head", unit_of(metric),
               metric + " of the '" + m.map + "' maps, mean over the probe set's " + (metric == "monotonicity" ? "examples" : "query rows") +
                   " (docs/concepts/measuring-attention.md)");
    }
}

std::vector<MapMetrics> read_attention_metrics(const Hdf5File& f, const std::string& group) {
  std::vector<MapMetrics> out;
  if (!f.exists(group)) return out;
  for (const std::string& map : f.children(group)) {
    MapMetrics m{map, 0, 0, {}};
    for (const std::string& metric : f.children(group + "/" + map)) {
      const Tensor t = f.read(group + "/" + map + "/" + metric);
      m.layers = t.shape()[0], m.heads = t.shape()[1];
      m.values[metric] = std::vector<double>(t.begin(), t.end());
    }
    out.push_back(std::move(m));
  }
  return out;
}

void write_attention_history(Hdf5File& f, const std::string& base, const std::vector<EpochRecord>& history) {
  std::vector<MapMetrics> shapes;  // every (map, metric) measured in some epoch
  for (const EpochRecord& e : history)
    for (const MapMetrics& m : e.attention)
      if (!find_map(shapes, m.map)) shapes.push_back(m);
  for (const MapMetrics& shape : shapes) {
    std::set<std::string> names;
    for (const EpochRecord& e : history)
      if (const MapMetrics* m = find_map(e.attention, shape.map))
        for (const auto& kv : m->values) names.insert(kv.first);
    for (const std::string& metric : names) {
      Tensor grid = Tensor::from_shape({history.size(), shape.layers, shape.heads});
      std::fill(grid.begin(), grid.end(), std::numeric_limits<float>::quiet_NaN());
      for (std::size_t i = 0; i < history.size(); ++i)
        if (const MapMetrics* m = find_map(history[i].attention, shape.map); m && m->values.count(metric))
          std::transform(m->values.at(metric).begin(), m->values.at(metric).end(), grid.begin() + static_cast<std::ptrdiff_t>(i * shape.layers * shape.heads),
                         [](double x) { return static_cast<float>(x); });
      const std::string path = attention_history_in(base) + "/" + shape.map + "/" + metric;
      f.write(path, grid);
      describe(f, path, "epoch,layer,head", unit_of(metric),
               metric + " of the '" + shape.map + "' maps per epoch (NaN: not measured that epoch)");
    }
  }
  for (const EpochRecord& e : history)
    for (const ExampleAttention& ex : e.snapshot)
      write_example(f, snapshots_in(base) + "/" + epoch_name(e.epoch) + "/" + example_name(ex.example), ex);
}

void write_array_history(Hdf5File& f, const std::string& base, const std::vector<EpochRecord>& history) {
  std::map<std::string, Shape> shapes;  // every array of some epoch, with its shape
  for (const EpochRecord& e : history)
    for (const auto& [name, a] : e.arrays) shapes.emplace(name, shape_of(a));
  for (const auto& [name, shape] : shapes) {
    const std::size_t per = num_elements(shape);
    Shape stacked = {history.size()};
    stacked.insert(stacked.end(), shape.begin(), shape.end());
    Tensor out = Tensor::from_shape(stacked);
    std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
    for (std::size_t i = 0; i < history.size(); ++i)
      for (const auto& [n, a] : history[i].arrays)
        if (n == name && a.size() == per) std::copy(a.begin(), a.end(), out.begin() + static_cast<std::ptrdiff_t>(i * per));
    const std::string path = epoch_arrays_in(base) + "/" + name;
    f.write(path, out);
    describe(f, path, "epoch," + std::string(name == "confusion" ? "true class,predicted class" : "..."), name == "confusion" ? "examples" : "",
             name + " after each evaluated epoch (NaN: not evaluated that epoch)");
  }
}

void read_array_history(const Hdf5File& f, const std::string& base, std::vector<EpochRecord>& history) {
  const std::string group = present(f, epoch_arrays_in(base), base, "arrays");
  if (!f.exists(group)) return;
  for (const std::string& name : f.children(group)) {
    const Tensor stacked = f.read(group + "/" + name);  // [epoch, ...]
    if (stacked.dimension() < 1 || stacked.shape()[0] == 0) continue;
    const Shape one(stacked.shape().begin() + 1, stacked.shape().end());
    const std::size_t per = num_elements(one);
    for (std::size_t i = 0; i < std::min(history.size(), stacked.shape()[0]); ++i) {
      const float* row = stacked.data() + i * per;
      if (per == 0 || std::all_of(row, row + per, [](float x) { return std::isnan(x); })) continue;
      Tensor a = Tensor::from_shape(one);
      std::copy(row, row + per, a.begin());
      history[i].arrays.emplace_back(name, std::move(a));
    }
  }
}

void read_attention_history(const Hdf5File& f, const std::string& base, std::vector<EpochRecord>& history) {
  const std::string metrics_group = present(f, attention_history_in(base), base, "attention");
  if (f.exists(metrics_group))
    for (const std::string& map : f.children(metrics_group))
      for (const std::string& metric : f.children(metrics_group + "/" + map)) {
        const Tensor grid = f.read(metrics_group + "/" + map + "/" + metric);  // [epoch, layer, head]
        const std::size_t per_epoch = grid.shape()[1] * grid.shape()[2];
        for (std::size_t i = 0; i < std::min(history.size(), grid.shape()[0]); ++i) {
          const float* row = grid.data() + i * per_epoch;
          if (std::all_of(row, row + per_epoch, [](float x) { return std::isnan(x); })) continue;
          std::vector<MapMetrics>& measured = history[i].attention;
          MapMetrics* m = find_map(measured, map);
          if (!m) m = &measured.emplace_back(MapMetrics{map, grid.shape()[1], grid.shape()[2], {}});
          m->values[metric] = std::vector<double>(row, row + per_epoch);
        }
      }
  const std::string snapshots = present(f, snapshots_in(base), base, "snapshots");
  if (!f.exists(snapshots)) return;
  for (EpochRecord& e : history)
    if (f.exists(snapshots + "/" + epoch_name(e.epoch)))
      for (const std::string& ex : f.children(snapshots + "/" + epoch_name(e.epoch)))
        e.snapshot.push_back(read_example(f, snapshots + "/" + epoch_name(e.epoch) + "/" + ex));
}

}  // namespace attn::layout
