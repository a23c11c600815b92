// Self-contained SVG pictures: attention heatmaps with token labels and a colour bar, and
// line/point charts with axes and a legend. No fonts or scripts are referenced, so the SVG
// renders the same in a browser, in an HTML report and through rsvg-convert.
#pragma once

#include <string>
#include <vector>

namespace attn::svg {

struct Heatmap {
  std::vector<std::vector<double>> values;  // [rows][columns]
  std::vector<std::string> row_labels, column_labels;
  std::string title, row_axis, column_axis;  // e.g. "output tokens", "source tokens"
  double vmin = 0.0, vmax = 1.0;             // the colour scale (viridis)
};

struct Series {
  std::string name;
  std::vector<double> x, y;
  enum class Style { line, dashed, points } style = Style::line;
  int colour = -1;  // palette index; -1: the series' position
};

struct Chart {
  std::string title, x_axis, y_axis;
  std::vector<Series> series;
};

// One picture each; width/height come from the content.
std::string heatmap(const Heatmap& h);
std::string chart(const Chart& c);
// Several pictures side by side (wrapping after `columns`), with an optional overall title.
std::string grid(const std::vector<std::string>& pictures, std::size_t columns, const std::string& title = "");

// Viridis colour of t in [0, 1] as "#rrggbb".
std::string viridis(double t);
std::string escape(const std::string& text);  // for XML text and attributes

}  // namespace attn::svg
