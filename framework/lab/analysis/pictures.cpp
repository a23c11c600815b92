#include "lab/analysis/pictures.hpp"

#include "attnlab/data/text.hpp"
#include "attnlab/models/attention_rollout.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

#include <xtensor/xview.hpp>
#include <stdexcept>

#include "lab/analysis/frames_picture.hpp"
#include "lab/analysis/graph_picture.hpp"
#include "lab/analysis/image_picture.hpp"
#include "lab/analysis/svg.hpp"
#include "lab/results/results_format.hpp"
#include "lab/results/summary.hpp"
#include "attnlab/suggest.hpp"

namespace attn {

std::pair<std::string, std::string> map_axes(const std::string& map) {
  if (map == "kernel") return {"queries: test x", "keys: training x"};
  if (map == "encoder_self") return {"queries: source tokens", "keys: source tokens"};
  if (map == "decoder_self") return {"queries: output tokens", "keys: decoder inputs"};
  if (map == "decoder_state") return {"queries: output tokens", "keys: the decoder's own state"};
  return {"queries: output tokens", "keys: source tokens"};
}

std::vector<std::size_t> unpadded(std::size_t n, const std::vector<std::string>& labels) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < n; ++i)
    if (i >= labels.size() || labels[i] != "<pad>") kept.push_back(i);
  return kept;
}

namespace {

std::vector<double> doubles(const Tensor& t) { return {t.begin(), t.end()}; }

// One heatmap of weights[layer, head] (or the head average), without <pad> rows and columns,
// on the shared [0, 1] colour scale unless `own_scale` (then [0, the panel's largest weight]).
std::string one_map(const Tensor& w, const std::vector<std::string>& queries, const std::vector<std::string>& keys,
                    std::size_t layer, std::optional<std::size_t> head, const std::string& title, const std::string& map,
                    bool own_scale) {
  const std::size_t heads = w.shape()[1];
  svg::Heatmap h;
  const std::vector<std::size_t> columns = unpadded(w.shape()[3], keys);
  for (std::size_t k : columns) h.column_labels.push_back(k < keys.size() ? keys[k] : std::to_string(k));
  for (std::size_t q : unpadded(w.shape()[2], queries)) {
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
  std::tie(h.row_axis, h.column_axis) = map_axes(map);
  double mx = 0;
  for (const auto& r : h.values)
    for (double v : r) mx = std::max(mx, v);
  h.vmax = own_scale && mx > 0 ? std::min(1.0, mx) : 1.0;
  if (own_scale) h.title += " (own scale)";
  return svg::heatmap(h);
}

}  // namespace

namespace {

// Checks the shape of a recorded map and the layer/head the view asks for.
void check_map(const std::string& path, const AttentionMap& m, const AttentionView& view) {
  if (m.weights.dimension() != 4 || m.weights.size() == 0)
    throw std::invalid_argument(path + ": the " + m.name + " map's weights are " + shape_str(shape_of(m.weights)) +
                                ", not [layer, head, n_q, n_k] (a damaged file?)");
  const std::size_t layers = m.weights.shape()[0], heads = m.weights.shape()[1];
  if (view.layer && *view.layer >= layers)
    throw UsageError("layer " + std::to_string(*view.layer) + " out of range: the " + m.name + " map has " + std::to_string(layers));
  if (view.head && *view.head >= heads)
    throw UsageError("head " + std::to_string(*view.head) + " out of range: the " + m.name + " map has " + std::to_string(heads));
}

// Gradient-weighted rollout of probe example `example`'s map `m` (its relevance from the view),
// [n_q, n_k] as the recorded map is laid out.
Tensor gradient_composed(const AttentionMap& m, const AttentionView& view, std::size_t example, std::size_t n) {
  const Tensor relevance = view.relevance(m.name, example);
  const Tensor r = gradient_rollout(relevance, std::min(n, relevance.shape()[2]));
  Tensor out = xt::zeros<float>({m.weights.shape()[2], m.weights.shape()[3]});
  for (std::size_t i = 0; i < std::min(out.shape()[0], r.shape()[0]); ++i)
    for (std::size_t j = 0; j < std::min(out.shape()[1], r.shape()[1]); ++j) out(i, j) = r(i, j);
  return out;
}

// `m` composed over its layers as the view says (rollout or flow), as a map of one layer and
// one head; the view's title names it. Only the self-attention of Transformer blocks composes
// (its queries are its keys, and a residual carries each position past the attention: gat
// has none); padding keys are left out of the composition. `example`: the probe example the
// map is of (for gradient-weighted rollout).
AttentionMap composed(const AttentionMap& m, AttentionView& view, std::size_t example) {
  const auto& s = m.weights.shape();
  if (s[2] != s[3] || (m.name != "encoder_self" && m.name != "decoder_self"))
    throw UsageError("--" + view.composed + " composes a stack of self-attention blocks with a residual (each layer's positions are "
                     "the next one's); the " + m.name + " map is not one (choose one with --map: encoder_self or decoder_self)");
  const std::size_t n = m.keys.empty() ? s[3] : unpadded(s[3], m.keys).size();
  AttentionMap out = m;
  const std::string layers = std::to_string(s[0]) + " layer" + (s[0] == 1 ? "" : "s");
  try {
    if (view.fusion == "gradient") {
      out.weights = gradient_composed(m, view, example, n);
      view.title = m.name + " gradient-weighted rollout over " + layers + " (Chefer et al.), without the identity";
    } else {
      const HeadFusion fusion = head_fusion(view.fusion);
      out.weights = view.composed == "flow" ? attention_flow(m.weights, fusion, n) : attention_rollout(m.weights, fusion, n);
      view.title = m.name + " " + view.composed + " over " + layers + ", heads' " + view.fusion + ", with the residual";
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  out.weights.reshape({1, 1, s[2], s[3]});
  return out;
}

// A composed map over text as token lines (BertViz's view): queries on the left, keys on the
// right, a line from each query to each key of weight >= 0.01, its opacity and width the weight.
std::string token_lines(const AttentionMap& m) {
  const std::vector<std::size_t> rows = unpadded(m.weights.shape()[2], m.queries), columns = unpadded(m.weights.shape()[3], m.keys);
  const double step = 16, qx = 130, kx = 290, height = 50 + step * static_cast<double>(std::max(rows.size(), columns.size()));
  const auto label = [](const std::vector<std::string>& names, std::size_t i) { return i < names.size() ? names[i] : std::to_string(i); };
  std::ostringstream b;
  b << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"token-lines\" width=\"420\" height=\"" << height << "\" viewBox=\"0 0 420 "
    << height << "\">\n<rect width=\"420\" height=\"" << height << "\" fill=\"white\"/>\n<text x=\"10\" y=\"18\" font-size=\"12\" "
    << "font-family=\"DejaVu Sans\">as token lines: width and opacity = weight</text>\n";
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < columns.size(); ++j)
      if (const double w = m.weights(0, 0, rows[i], columns[j]); w >= 0.01)
        b << "<line x1=\"" << qx + 4 << "\" y1=\"" << 36 + step * i << "\" x2=\"" << kx - 4 << "\" y2=\"" << 36 + step * j
          << "\" stroke=\"#2171b5\" stroke-opacity=\"" << w << "\" stroke-width=\"" << 0.5 + 4 * w << "\"/>\n";
  for (std::size_t i = 0; i < rows.size(); ++i)
    b << "<text x=\"" << qx << "\" y=\"" << 40 + step * i << "\" text-anchor=\"end\" font-size=\"11\" font-family=\"DejaVu Sans\">"
      << svg::escape(label(m.queries, rows[i])) << "</text>\n";
  for (std::size_t j = 0; j < columns.size(); ++j)
    b << "<text x=\"" << kx << "\" y=\"" << 40 + step * j << "\" font-size=\"11\" font-family=\"DejaVu Sans\">"
      << svg::escape(label(m.keys, columns[j])) << "</text>\n";
  b << "</svg>\n";
  return b.str();
}

// The heatmaps of one map the view selects; widens heads_in_row to the heads shown side by side.
void map_pictures(const AttentionMap& m, const AttentionView& view, std::vector<std::string>& pictures,
                  std::size_t& heads_in_row) {
  const Tensor& w = m.weights;  // [layer, head, n_q, n_k]
  const std::size_t layers = w.shape()[0], heads = w.shape()[1];
  for (std::size_t l = 0; l < layers; ++l) {
    if (view.layer && *view.layer != l) continue;
    if (view.average || heads == 1) {
      const std::string what = heads == 1 ? "" : ", average of " + std::to_string(heads) + " heads";
      const std::string title = view.title.empty() ? m.name + " attention, layer " + std::to_string(l) + what : view.title;
      pictures.push_back(one_map(w, m.queries, m.keys, l, heads == 1 ? std::optional<std::size_t>(0) : std::nullopt, title, m.name,
                                 view.own_scale));
      continue;
    }
    for (std::size_t h = 0; h < heads; ++h) {
      if (view.head && *view.head != h) continue;
      pictures.push_back(one_map(w, m.queries, m.keys, l, h,
                                 m.name + ", layer " + std::to_string(l) + ", head " + std::to_string(h), m.name, view.own_scale));
    }
    heads_in_row = std::max(heads_in_row, view.head ? std::size_t{1} : heads);
  }
}

}  // namespace

std::vector<std::string> recorded_examples(const ResultsReader& file, const std::string& run) {
  return file.examples(run);
}

bool has_fit(const ResultsReader& file, const std::string& run) { return file.plot_data(run, "y_prediction").has_value(); }

bool draws_on_input(const ResultsReader& file, const std::string& run) {
  if (file.examples(run).empty()) return false;
  for (const char* input : {"probe_images", "adjacency", "probe_frames"})
    if (file.plot_data(run, input)) return true;
  return false;
}

namespace {

// An array a picture draws (data/<name>), when the run has it: of rank `rank`, else the file is
// damaged (an edited file must not be read out of bounds).
std::optional<Tensor> picture_data(const ResultsReader& file, const std::string& run, const std::string& name, std::size_t rank) {
  std::optional<Tensor> t = file.plot_data(run, name);
  if (t && (t->dimension() != rank || t->size() == 0))
    throw FileError(file.path() + ": run '" + run + "': data/" + name + " has shape " + shape_str(shape_of(*t)) + ", not " +
                    std::to_string(rank) + " axes (a damaged file)");
  return t;
}

// Why a run may have nothing to draw: "" for a run that finished, else " (the run failed: ...)".
std::string unfinished_note(const ResultsReader& file, const std::string& run) {
  const RunInfo info = file.run(run);
  if (succeeded(info.status)) return "";
  const std::string error = utf8_shortened(info.error, 120);
  return std::string(" (the run ") + to_string(info.status) + (error.empty() ? "" : ": " + error) + ")";
}

}  // namespace

ExampleToDraw example_to_draw(const ResultsReader& file, const std::string& run, const std::string& example) {
  const std::vector<std::string> examples = file.examples(run);
  if (examples.empty() && example.empty()) {
    const std::string note = unfinished_note(file, run);
    throw UsageError("run '" + run + "' recorded no attention maps" + (note.empty() ? " (a model without attention?)" : note));
  }
  ExampleToDraw e;
  e.path = file.path(), e.run = run;
  e.name = example.empty() ? examples[0] : example;
  e.example = file.example(run, e.name);
  e.adjacency = picture_data(file, run, "adjacency", 2);  // a graph: drawn as one
  e.images = picture_data(file, run, "probe_images", 3);  // images: attention laid over them
  e.frames = picture_data(file, run, "probe_frames", 3);  // speech: attention above its spectrogram
  e.lengths = picture_data(file, run, "probe_lengths", 1), e.times = picture_data(file, run, "probe_times", 2);
  if (e.frames && (!e.lengths || !e.times || e.lengths->shape()[0] != e.frames->shape()[0] ||
                   e.times->shape()[0] != e.frames->shape()[0] || e.times->shape()[1] != e.frames->shape()[1]))
    throw FileError(file.path() + ": run '" + run + "': data/probe_frames, probe_times and probe_lengths do not agree in shape (a damaged file)");
  return e;
}

std::string attention_picture(const ResultsReader& file, const std::string& run, const AttentionView& view) {
  return draw_attention(example_to_draw(file, run, view.example), view);
}

std::string draw_attention(const ExampleToDraw& e, const AttentionView& view) {
  const ExampleAttention& example = e.example;
  const std::string& run = e.run;
  const std::string& name = e.name;
  const std::optional<Tensor>&adjacency = e.adjacency, &images = e.images, &frames = e.frames, &lengths = e.lengths, &times = e.times;
  std::vector<AttentionMap> maps = example.maps;
  if (maps.empty())
    throw UsageError("run '" + run + "' recorded no attention map for " + name +
                     ": its model computes no attention (as seq2seq with attention: none does); nothing to draw");
  if (!view.map.empty()) {
    std::vector<std::string> names;
    for (const AttentionMap& m : maps) names.push_back(m.name);
    const auto it = std::find(names.begin(), names.end(), view.map);
    if (it == names.end()) throw UsageError(unknown_name_message("attention map", view.map, names));
    maps = {maps[static_cast<std::size_t>(it - names.begin())]};
  }
  std::string caption = run + ", " + name;
  if (adjacency) {
    caption += ": " + example.source;  // (its nodes' classes are the colours)
  } else if (!example.source.empty()) {
    const auto cut = [](const std::string& text) { return utf8_shortened(text, 40); };  // a caption stays one short line
    caption += ": \"" + cut(example.source) + "\" -> \"" + cut(example.prediction) + "\"";
    if (!example.target.empty() && example.prediction != example.target) caption += " (target \"" + cut(example.target) + "\")";
  }
  if (view.fusion == "gradient" && name.rfind("example_", 0) != 0)
    throw UsageError("--rollout gradient explains a recorded example (--example N), one of the probe set; " + name + " is not");
  std::vector<std::string> pictures;
  std::size_t heads_in_row = 1;
  for (const AttentionMap& drawn : maps) {
    check_map(e.path, drawn, view);
    AttentionView shown = view;  // (with its title, for a composed map)
    const std::size_t index = example.example;
    const AttentionMap m = view.composed.empty() ? drawn : composed(drawn, shown, index);
    if (images && over_patches(m) && name.rfind("example_", 0) == 0 && index < images->shape()[0]) {
      Tensor image = xt::view(*images, index);
      for (std::string& p : image_attention_pictures(image, m, shown)) pictures.push_back(std::move(p));
      heads_in_row = std::max<std::size_t>(heads_in_row, shown.average || shown.head ? 1 : std::min<std::size_t>(m.weights.shape()[1], 4));
      continue;
    }
    if (frames && lengths && times && name.rfind("example_", 0) == 0 && index < frames->shape()[0]) {
      const Tensor utterance = xt::view(*frames, index), at = xt::view(*times, index);
      const float stored = (*lengths)(index);  // a count, kept as a float: an edited file may hold anything
      const std::size_t length = std::isfinite(stored) && stored > 0.0f ? static_cast<std::size_t>(std::min(stored, 1e9f)) : 0;
      for (std::string& p : frames_attention_pictures(utterance, at, length, m, shown))
        pictures.push_back(std::move(p));
      continue;
    }
    if (!adjacency) {
      map_pictures(m, shown, pictures, heads_in_row);
      if (!view.composed.empty()) pictures.push_back(token_lines(m)), heads_in_row = 2;
      continue;
    }
    if (adjacency->shape()[0] != adjacency->shape()[1] || adjacency->shape()[0] != m.weights.shape()[2] || m.weights.shape()[2] != m.weights.shape()[3])
      throw FileError(e.path + ": run '" + run + "': data/adjacency " + shape_str(shape_of(*adjacency)) + " is not the graph of the " +
                      m.name + " map " + shape_str(shape_of(m.weights)) + " (a damaged file)");
    for (std::size_t l = 0; l < m.weights.shape()[0]; ++l)
      if (!shown.layer || *shown.layer == l) pictures.push_back(graph_attention_picture(*adjacency, example, m, l, shown.head));
    heads_in_row = 2;
  }
  if (pictures.empty()) throw UsageError("nothing to draw for that layer/head selection");
  return svg::grid(pictures, std::min<std::size_t>(heads_in_row, 4), caption);
}

namespace {

const std::vector<double>* column(const HistoryColumns& history, const std::string& name) {
  for (const auto& [n, values] : history)
    if (n == name) return &values;
  return nullptr;
}

}  // namespace

std::string curves_picture(const ResultsReader& file, const std::vector<std::string>& runs,
                           const std::vector<std::string>& metrics_in) {
  svg::Chart c;
  c.x_axis = "epoch";
  std::vector<std::string> metrics = metrics_in;
  if (metrics.empty()) {
    metrics.push_back("train_loss");
    for (const auto& [col, values] : file.history(runs.at(0)))
      if (col != "train_loss" && col.size() > 5 && col.compare(col.size() - 5, 5, "_loss") == 0) metrics.push_back(col);
  }
  c.y_axis = metrics.size() == 1 ? metrics[0] : "value";
  c.title = metrics.size() == 1 ? metrics[0] + " per epoch" : "training curves";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::string& run = runs[r];
    const HistoryColumns history = file.history(run);
    if (history.empty()) continue;  // a run that trained nothing
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      const std::vector<double>* values = column(history, metrics[i]);
      if (!values) {
        std::vector<std::string> names;
        for (const auto& kv : history) names.push_back(kv.first);
        throw UsageError(unknown_name_message("metric", metrics[i], names) + " (in run '" + run + "')");
      }
      svg::Series s;
      s.name = (runs.size() > 1 ? run + " " : "") + metrics[i];
      s.x = *column(history, "epoch");
      s.y = *values;
      s.style = i == 0 ? svg::Series::Style::line : svg::Series::Style::dashed;
      s.colour = static_cast<int>(runs.size() > 1 ? r : i);  // one colour per run; metrics by dash
      c.series.push_back(std::move(s));
    }
  }
  if (c.series.empty()) {
    std::string notes;
    for (const std::string& run : runs)
      if (const std::string note = unfinished_note(file, run); !note.empty()) notes += "; " + run + note;
    throw UsageError("no run has a per-epoch history to plot" + notes);
  }
  return svg::chart(c);
}

namespace {

svg::Chart fit_chart(const ResultsReader& file, const std::string& run) {
  if (!has_fit(file, run)) {
    const std::string note = unfinished_note(file, run);
    throw UsageError("run '" + run + "' has no regression fit to plot" + (note.empty() ? " (only nadaraya_watson runs do)" : note));
  }
  const auto data = [&](const char* name) {
    const auto t = file.plot_data(run, name);
    if (!t) throw std::invalid_argument(file.path() + ": run '" + run + "' has no " + name + " for its fit (a damaged file?)");
    return doubles(*t);
  };
  svg::Chart c;
  c.title = "Nadaraya-Watson fit, " + run;
  const Metrics metrics = file.run(run).metrics;
  if (metrics.count("learned_width"))  // gaussian_learned: the kernel's width 1/|w|
    c.title += ", learned width 1/|w| = " + format_number(metrics.at("learned_width"));
  c.x_axis = "x";
  c.y_axis = "y";
  c.series.push_back({"training points", data("x_train"), data("y_train"), svg::Series::Style::points});
  c.series.push_back({"truth f(x)", data("x_test"), data("y_truth"), svg::Series::Style::dashed});
  c.series.push_back({"prediction", data("x_test"), data("y_prediction"), svg::Series::Style::line});
  return c;
}

}  // namespace

std::string fit_picture(const ResultsReader& file, const std::vector<std::string>& runs) {
  std::vector<std::string> fits, maps;
  AttentionView view;
  view.map = "kernel";
  for (const std::string& run : runs) {
    fits.push_back(svg::chart(fit_chart(file, run)));
    maps.push_back(attention_picture(file, run, view));
  }
  fits.insert(fits.end(), maps.begin(), maps.end());  // fits above, their attention below
  return svg::grid(fits, runs.size() == 1 ? 2 : runs.size());
}

}  // namespace attn
