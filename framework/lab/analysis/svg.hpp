// Self-contained SVG pictures: attention heatmaps with token labels and a colour bar, and
// line/point charts with axes and a legend. No fonts or scripts are referenced, so the SVG
// renders the same in a browser, in an HTML report and through rsvg-convert.
#pragma once

#include <string>
#include <utility>
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

// A graph: nodes at positions in [0, 1]^2, edges drawn with a width and darkness in proportion
// to their weight (the largest weight drawn widest), nodes coloured by class.
struct GraphDrawing {
  std::vector<std::pair<double, double>> positions;
  std::vector<std::string> labels;  // one per node
  std::vector<int> classes;         // palette index per node; -1: grey
  std::vector<bool> ringed;         // drawn with a thick ring (e.g. the nodes labelled for training)
  struct Edge {
    std::size_t a, b;
    double weight;
  };
  std::vector<Edge> edges;
  std::string title, legend;
};

// An image with a grid of cells over it, each cell tinted by its weight (attention over an
// image's patches): the image is a PNG embedded as base64.
struct ImageOverlay {
  std::string png_base64;
  std::size_t grid_rows = 1, grid_cols = 1;
  std::vector<double> weights;  // grid_rows * grid_cols, row-major
  double vmax = 1.0;            // the weight drawn most opaque
  std::string title, caption;
};

// One picture each; width/height come from the content.
std::string heatmap(const Heatmap& h);
std::string chart(const Chart& c);
std::string graph(const GraphDrawing& g);
std::string image_overlay(const ImageOverlay& o);
// Several pictures side by side (wrapping after `columns`), with an optional overall title.
std::string grid(const std::vector<std::string>& pictures, std::size_t columns, const std::string& title = "");

// Viridis colour of t in [0, 1] as "#rrggbb".
std::string viridis(double t);
std::string escape(const std::string& text);  // for XML text and attributes

}  // namespace attn::svg
