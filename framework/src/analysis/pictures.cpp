#include "attnlab/analysis/pictures.hpp"

#include <cmath>
#include <tuple>
#include <stdexcept>

#include "attnlab/analysis/svg.hpp"
#include "attnlab/io/hdf5_file.hpp"
#include "attnlab/suggest.hpp"

namespace attn {
namespace {

std::string run_group(const Hdf5File& f, const std::string& run) {
  const std::string g = "/runs/" + run;
  if (!f.exists(g)) throw std::invalid_argument(unknown_name_message("run", run, f.children("/runs")));
  return g;
}

std::vector<double> doubles(const Tensor& t) { return {t.begin(), t.end()}; }

// Axis names of each kind of map: {rows, columns}.
std::pair<std::string, std::string> axes_of(const std::string& map) {
  if (map == "kernel") return {"queries: test x", "keys: training x"};
  if (map == "encoder_self") return {"queries: source tokens", "keys: source tokens"};
  if (map == "decoder_self") return {"queries: output tokens", "keys: decoder inputs"};
  return {"queries: output tokens", "keys: source tokens"};
}

// One heatmap of weights[layer, head] (or the head average), dropping <pad> key columns.
std::string one_map(const Tensor& w, const std::vector<std::string>& queries, const std::vector<std::string>& keys,
                    std::size_t layer, std::optional<std::size_t> head, const std::string& title, const std::string& map) {
  const std::size_t heads = w.shape()[1], nq = w.shape()[2], nk = w.shape()[3];
  svg::Heatmap h;
  std::vector<std::size_t> columns;
  for (std::size_t k = 0; k < nk; ++k)
    if (k >= keys.size() || keys[k] != "<pad>") columns.push_back(k);
  for (std::size_t k : columns) h.column_labels.push_back(k < keys.size() ? keys[k] : std::to_string(k));
  for (std::size_t q = 0; q < nq; ++q) {
    h.row_labels.push_back(q < queries.size() ? queries[q] : std::to_string(q));
    std::vector<double> row;
    for (std::size_t k : columns) {
      double v = 0;
      if (head) {
        v = w(layer, *head, q, k);
      } else {
        for (std::size_t hh = 0; hh < heads; ++hh) v += w(layer, hh, q, k);
        v /= static_cast<double>(heads);
      }
      row.push_back(v);
    }
    h.values.push_back(std::move(row));
  }
  h.title = title;
  std::tie(h.row_axis, h.column_axis) = axes_of(map);
  double mx = 0;
  for (const auto& r : h.values)
    for (double v : r) mx = std::max(mx, v);
  h.vmax = mx > 0 ? std::min(1.0, mx) : 1.0;
  return svg::heatmap(h);
}

}  // namespace

std::vector<std::string> recorded_examples(const Hdf5File& f, const std::string& run) {
  const std::string g = run_group(f, run) + "/attention";
  return f.exists(g) ? f.children(g) : std::vector<std::string>{};
}

bool has_fit(const Hdf5File& f, const std::string& run) { return f.exists(run_group(f, run) + "/data/y_prediction"); }

std::string attention_picture(const Hdf5File& f, const std::string& run, const AttentionView& view) {
  const std::vector<std::string> examples = recorded_examples(f, run);
  if (examples.empty()) throw std::invalid_argument("run '" + run + "' recorded no attention maps (a model without attention?)");
  const std::string example = view.example ? "example_" + std::to_string(*view.example) : examples[0];
  const std::string eg = "/runs/" + run + "/attention/" + example;
  if (!f.exists(eg)) throw std::invalid_argument(unknown_name_message("recorded example", example, examples));
  std::vector<std::string> maps = f.children(eg);
  if (!view.map.empty()) {
    if (!f.exists(eg + "/" + view.map)) throw std::invalid_argument(unknown_name_message("attention map", view.map, maps));
    maps = {view.map};
  }
  std::string caption = run + ", " + example;
  if (f.has_attr(eg, "source") && !f.attr_string(eg, "source").empty())
    caption += ": \"" + f.attr_string(eg, "source") + "\" -> \"" + f.attr_string(eg, "prediction") + "\"";
  std::vector<std::string> pictures;
  std::size_t heads_in_row = 1;
  for (const std::string& m : maps) {
    const Tensor w = f.read(eg + "/" + m + "/weights");  // [layer, head, n_q, n_k]
    if (w.dimension() != 4 || w.size() == 0)
      throw std::invalid_argument(f.path() + ": " + eg + "/" + m + "/weights is " + shape_str(shape_of(w)) +
                                  ", not [layer, head, n_q, n_k] (a damaged file?)");
    const auto queries = f.read_strings(eg + "/" + m + "/queries"), keys = f.read_strings(eg + "/" + m + "/keys");
    const std::size_t layers = w.shape()[0], heads = w.shape()[1];
    if (view.layer && *view.layer >= layers)
      throw std::invalid_argument("layer " + std::to_string(*view.layer) + " out of range: the " + m + " map has " + std::to_string(layers));
    if (view.head && *view.head >= heads)
      throw std::invalid_argument("head " + std::to_string(*view.head) + " out of range: the " + m + " map has " + std::to_string(heads));
    for (std::size_t l = 0; l < layers; ++l) {
      if (view.layer && *view.layer != l) continue;
      if (view.average || heads == 1) {
        const std::string what = heads == 1 ? "" : ", average of " + std::to_string(heads) + " heads";
        pictures.push_back(one_map(w, queries, keys, l, heads == 1 ? std::optional<std::size_t>(0) : std::nullopt,
                                   m + " attention, layer " + std::to_string(l) + what, m));
        continue;
      }
      for (std::size_t h = 0; h < heads; ++h) {
        if (view.head && *view.head != h) continue;
        pictures.push_back(one_map(w, queries, keys, l, h,
                                   m + " attention, layer " + std::to_string(l) + ", head " + std::to_string(h), m));
      }
      heads_in_row = std::max(heads_in_row, view.head ? std::size_t{1} : heads);
    }
  }
  if (pictures.empty()) throw std::invalid_argument("nothing to draw for that layer/head selection");
  return svg::grid(pictures, std::min<std::size_t>(heads_in_row, 4), caption);
}

std::string curves_picture(const Hdf5File& f, const std::vector<std::string>& runs, const std::vector<std::string>& metrics_in) {
  svg::Chart c;
  c.x_axis = "epoch";
  std::vector<std::string> metrics = metrics_in;
  if (metrics.empty()) {
    metrics.push_back("train_loss");
    for (const std::string& col : f.children(run_group(f, runs.at(0)) + "/history"))
      if (col != "train_loss" && col.size() > 5 && col.compare(col.size() - 5, 5, "_loss") == 0) metrics.push_back(col);
  }
  c.y_axis = metrics.size() == 1 ? metrics[0] : "value";
  c.title = metrics.size() == 1 ? metrics[0] + " per epoch" : "training curves";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::string& run = runs[r];
    const std::string g = run_group(f, run) + "/history";
    if (!f.exists(g + "/epoch")) continue;  // a run that trained nothing
    const std::vector<double> epoch = f.read_doubles(g + "/epoch");
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      if (!f.exists(g + "/" + metrics[i]))
        throw std::invalid_argument(unknown_name_message("metric", metrics[i], f.children(g)) + " (in run '" + run + "')");
      svg::Series s;
      s.name = (runs.size() > 1 ? run + " " : "") + metrics[i];
      s.x = epoch;
      s.y = f.read_doubles(g + "/" + metrics[i]);
      s.style = i == 0 ? svg::Series::Style::line : svg::Series::Style::dashed;
      s.colour = static_cast<int>(runs.size() > 1 ? r : i);  // one colour per run; metrics by dash
      c.series.push_back(std::move(s));
    }
  }
  if (c.series.empty()) throw std::invalid_argument("no run has a per-epoch history to plot");
  return svg::chart(c);
}

std::string fit_picture(const Hdf5File& f, const std::string& run) {
  const std::string g = run_group(f, run) + "/data";
  if (!f.exists(g + "/y_prediction"))
    throw std::invalid_argument("run '" + run + "' has no regression fit to plot (only nadaraya_watson runs do)");
  svg::Chart c;
  c.title = "Nadaraya-Watson fit, " + run;
  c.x_axis = "x";
  c.y_axis = "y";
  c.series.push_back({"training points", doubles(f.read(g + "/x_train")), doubles(f.read(g + "/y_train")), svg::Series::Style::points});
  c.series.push_back({"truth 2 sin(x) + x^0.8", doubles(f.read(g + "/x_test")), doubles(f.read(g + "/y_truth")), svg::Series::Style::dashed});
  c.series.push_back({"prediction", doubles(f.read(g + "/x_test")), doubles(f.read(g + "/y_prediction")), svg::Series::Style::line});
  AttentionView view;
  view.map = "kernel";
  return svg::grid({svg::chart(c), attention_picture(f, run, view)}, 2);
}

}  // namespace attn
