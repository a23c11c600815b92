#include "lab/analysis/report_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "lab/analysis/json_writer.hpp"
#include "lab/analysis/map_structure.hpp"
#include "lab/analysis/pictures.hpp"
#include "lab/results/results_format.hpp"

namespace attn {
namespace {

// Row or column labels: the tokens, or (Nadaraya-Watson) the x positions.
std::vector<std::string> labels_of(const std::vector<std::string>& tokens, const std::vector<float>& positions,
                                   const std::vector<std::size_t>& kept) {
  std::vector<std::string> out;
  for (const std::size_t i : kept) {
    if (i < tokens.size()) {
      out.push_back(tokens[i]);
    } else if (i < positions.size()) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3g", static_cast<double>(positions[i]));
      out.push_back(text);
    } else {
      out.push_back(std::to_string(i));
    }
  }
  return out;
}

// Whether every kept row of every layer and head sums to 1 (within 1e-3): false for a sigmoid or
// ReLU normalizer's rows, whose sums the report then shows.
bool rows_sum_to_one(const Tensor& w, const std::vector<std::size_t>& rows, const std::vector<std::size_t>& columns) {
  for (std::size_t l = 0; l < w.shape()[0]; ++l)
    for (std::size_t h = 0; h < w.shape()[1]; ++h)
      for (const std::size_t q : rows) {
        double sum = 0.0;
        for (const std::size_t k : columns) sum += w(l, h, q, k);
        if (std::abs(sum - 1.0) > 1e-3) return false;
      }
  return true;
}

void write_map(const AttentionMap& m, JsonWriter& j) {
  const Tensor& w = m.weights;  // [layer, head, n_q, n_k]
  if (w.dimension() != 4) return;
  const std::vector<std::size_t> rows = unpadded(w.shape()[2], m.queries), columns = unpadded(w.shape()[3], m.keys);
  const std::size_t layers = w.shape()[0], heads = w.shape()[1];
  j.object().key("name").value(m.name).key("axes");
  const auto [row_axis, column_axis] = map_axes(m.name);
  j.strings({row_axis, column_axis});
  j.key("layers").value(layers).key("heads").value(heads).key("rows").value(rows.size()).key("columns").value(columns.size());
  j.key("rows_sum_to_one").value(rows_sum_to_one(w, rows, columns));
  j.key("queries").strings(labels_of(m.queries, m.query_positions, rows));
  j.key("keys").strings(labels_of(m.keys, m.key_positions, columns));
  j.key("gold").array();
  for (const std::size_t q : rows) {
    const int g = q < m.gold_keys.size() ? m.gold_keys[q] : -1;
    std::size_t column = columns.size();  // the gold key's place among the kept columns
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (g >= 0 && columns[c] == static_cast<std::size_t>(g)) column = c;
    j.value(column < columns.size() ? static_cast<double>(column) : -1.0);
  }
  j.end_array().key("weights").array();
  for (std::size_t l = 0; l < layers; ++l)
    for (std::size_t h = 0; h < heads; ++h)
      for (const std::size_t q : rows)
        for (const std::size_t k : columns) j.value(static_cast<double>(w(l, h, q, k)), 3);
  j.end_array().end_object();
}

void write_view(const std::string& epoch, const ExampleAttention& e, JsonWriter& j) {
  j.object().key("epoch").value(epoch).key("maps").array();
  for (const AttentionMap& m : e.maps) write_map(m, j);
  j.end_array().end_object();
}

// One recorded example (final maps, then every snapshot) or one typed probe (final maps only).
void write_example(const ResultsReader& file, const std::string& run, const std::string& name,
                   const std::vector<std::size_t>& epochs, JsonWriter& j) {
  const ExampleAttention final_maps = file.example(run, name);
  j.object().key("name").value(name).key("source").value(final_maps.source).key("target").value(final_maps.target);
  j.key("prediction").value(final_maps.prediction).key("views").array();
  for (const std::size_t e : epochs) write_view(std::to_string(e), file.snapshot(run, e, name), j);
  write_view("final", final_maps, j);
  j.end_array().end_object();
}

// The run's final maps drawn on their input (an image, a graph, speech frames), for the
// explorer: {example: {map: [per layer: {"avg" (the heads' mean), "0", "1", ...: svg}]}}.
void write_input_pictures(const ResultsReader& file, const std::string& run, JsonWriter& j) {
  j.key("inputs").object();
  for (const std::string& name : file.examples(run)) {
    j.key(name).object();
    const ExampleToDraw example = example_to_draw(file, run, name);  // read once for all its pictures
    for (const AttentionMap& m : example.example.maps) {
      if (m.weights.dimension() != 4) continue;
      j.key(m.name).array();
      for (std::size_t l = 0; l < m.weights.shape()[0]; ++l) {
        j.object();
        AttentionView view;
        view.map = m.name, view.layer = l, view.average = true;
        j.key("avg").value(draw_attention(example, view));
        view.average = false;
        for (std::size_t h = 0; h < m.weights.shape()[1]; ++h) {
          view.head = h;
          j.key(std::to_string(h)).value(draw_attention(example, view));
        }
        j.end_object();
      }
      j.end_array();
    }
    j.end_object();
  }
  j.end_object();
}

void write_run(const ResultsReader& file, const RunInfo& r, JsonWriter& j) {
  j.object().key("id").value(r.id).key("label").value(sweep_point_label(r.point));
  j.key("status").value(to_string(r.status)).key("seed").value(static_cast<std::size_t>(r.seed));
  j.key("examples").array();
  const std::vector<std::size_t> epochs = file.snapshot_epochs(r.id);
  for (const std::string& name : file.examples(r.id)) write_example(file, r.id, name, epochs, j);
  for (const std::string& name : file.probes(r.id)) write_example(file, r.id, name, {}, j);
  j.end_array();
  if (draws_on_input(file, r.id)) write_input_pictures(file, r.id, j);
  j.end_object();
}

// Values of several runs: metric -> sweep point label -> x (an epoch, a length) -> one per run.
using Series = std::map<std::string, std::map<std::string, std::map<double, std::vector<double>>>>;

// `key`: {<metric>: [{label, epoch (the x values), mean, std}]}, the labels in their order.
void write_series(JsonWriter& j, const std::string& key, const Series& values, const std::vector<std::string>& labels) {
  j.key(key).object();
  for (const auto& [name, by_label] : values) {
    j.key(name).array();
    for (const std::string& label : labels) {
      if (!by_label.count(label)) continue;
      std::vector<double> xs, mean, std;
      for (const auto& [x, at] : by_label.at(label)) {
        const auto [m, s] = mean_and_std(at);
        xs.push_back(x), mean.push_back(m), std.push_back(s);
      }
      j.object().key("label").value(label).key("epoch").numbers(xs).key("mean").numbers(mean);
      j.key("std").numbers(std).end_object();
    }
    j.end_array();
  }
  j.end_object();
}

// Per history column, per sweep point: the mean and std over the point's runs at each epoch.
void write_curves(const ResultsReader& file, const std::vector<RunInfo>& runs, JsonWriter& j) {
  Series values;  // column -> label -> epoch -> values
  std::vector<std::string> labels;
  for (const RunInfo& r : runs) {
    const HistoryColumns history = file.history(r.id);
    const std::vector<double>* epoch = nullptr;
    for (const auto& [name, column] : history)
      if (name == "epoch") epoch = &column;
    if (!epoch) continue;
    const std::string label = sweep_point_label(r.point);
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
    for (const auto& [name, column] : history)
      if (name != "epoch")
        for (std::size_t i = 0; i < column.size() && i < epoch->size(); ++i)
          if (std::isfinite(column[i])) values[name][label][(*epoch)[i]].push_back(column[i]);
  }
  write_series(j, "curves", values, labels);
}

// Per metric of evaluation.lengths, per sweep point: the mean and std over the point's runs at
// each length (the same shape as the curves, with the length in "epoch").
void write_length_curves(const ResultsReader& file, const std::vector<RunInfo>& runs, JsonWriter& j) {
  Series values;  // metric -> label -> length -> values
  std::vector<std::string> labels;
  for (const RunInfo& r : runs)
    for (const auto& [length, metrics] : file.length_metrics(r.id)) {
      const std::string label = sweep_point_label(r.point);
      if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
      for (const auto& [name, value] : metrics)
        if (std::isfinite(value) && !is_per_class_metric(name)) values[name][label][static_cast<double>(length)].push_back(value);
    }
  write_series(j, "lengths", values, labels);
}

}  // namespace

std::string report_data(const ResultsReader& file, const std::vector<RunInfo>& runs) {
  JsonWriter j;
  j.object().key("name").value(file.header().name).key("groups").array();
  std::vector<std::string> labels;
  for (const RunInfo& r : runs)
    if (std::find(labels.begin(), labels.end(), sweep_point_label(r.point)) == labels.end())
      labels.push_back(sweep_point_label(r.point));
  for (const std::string& label : labels) {
    j.object().key("label").value(label).key("runs").array();
    for (const RunInfo& r : runs)
      if (sweep_point_label(r.point) == label) j.value(r.id);
    j.end_array().end_object();
  }
  j.end_array();
  write_curves(file, runs, j);
  write_length_curves(file, runs, j);
  if (const std::optional<MostStructured> open = most_structured(file, runs)) {
    j.key("opening").object().key("run").value(open->run).key("example").value(open->example).key("map").value(open->map);
    j.key("layer").value(open->layer).key("head").value(open->head).key("structure").value(open->structure, 3).end_object();
  }
  j.key("runs").array();
  for (const RunInfo& r : runs) write_run(file, r, j);
  j.end_array().end_object();
  return j.text();
}

}  // namespace attn
