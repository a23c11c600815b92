#include "lab/analysis/frames_picture.hpp"

#include <algorithm>

#include "lab/analysis/svg.hpp"

namespace attn {

std::vector<std::string> frames_attention_pictures(const Tensor& frames, const Tensor& times, std::size_t length,
                                                   const AttentionMap& map, const AttentionView& view) {
  const std::size_t layers = map.weights.shape()[0], heads = map.weights.shape()[1], mels = frames.shape()[1];
  const bool cls = !map.keys.empty() && map.keys[0] == "<cls>";
  const std::size_t first = cls ? 1 : 0;  // the key of frame 0
  length = std::min({length, map.weights.shape()[3] - first, frames.shape()[0], times.size()});
  std::vector<std::string> out;
  svg::Chart chart;
  chart.title = (cls ? "<cls>'s attention" : "attention (mean over the frames' queries)") + std::string(" over time") +
                (view.head ? ", head " + std::to_string(*view.head) : ", mean of " + std::to_string(heads) + " heads");
  chart.x_axis = "seconds";
  chart.y_axis = "weight";
  for (std::size_t l = 0; l < layers; ++l) {
    if (view.layer && *view.layer != l) continue;
    svg::Series s;
    s.name = "layer " + std::to_string(l);
    const std::size_t queries = cls ? 1 : length;
    for (std::size_t t = 0; t < length; ++t) {
      double w = 0.0, parts = 0.0;
      for (std::size_t h = 0; h < heads; ++h)
        if (!view.head || *view.head == h)
          for (std::size_t q = 0; q < queries; ++q) w += map.weights(l, h, q, first + t), parts += 1.0;
      s.x.push_back(times(t));
      s.y.push_back(w / parts);
    }
    chart.series.push_back(std::move(s));
  }
  out.push_back(svg::chart(chart));
  svg::Heatmap spectrogram;
  spectrogram.title = "log-mel frames (standardised)";
  spectrogram.row_axis = "mel band (high to low)";
  spectrogram.column_axis = "frame";
  double lo = 0.0, hi = 0.0;
  for (std::size_t m = mels; m-- > 0;) {
    spectrogram.row_labels.push_back(m % 10 == 0 ? std::to_string(m) : "");
    std::vector<double> row;
    for (std::size_t t = 0; t < length; ++t) row.push_back(frames(t, m)), lo = std::min(lo, row.back()), hi = std::max(hi, row.back());
    spectrogram.values.push_back(std::move(row));
  }
  for (std::size_t t = 0; t < length; ++t) spectrogram.column_labels.push_back(t % 10 == 0 ? std::to_string(t) : "");
  spectrogram.vmin = lo;
  spectrogram.vmax = hi;
  out.push_back(svg::heatmap(spectrogram));
  return out;
}

}  // namespace attn
