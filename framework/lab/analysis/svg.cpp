#include "attnlab/data/text.hpp"
#include "lab/analysis/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace attn::svg {
namespace {

constexpr const char* font = "font-family=\"DejaVu Sans, Arial, sans-serif\"";
const char* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string tick_label(double v) {
  char buf[32];
  if (std::abs(v) < 1e-12) return "0";
  if (std::abs(v) >= 1e5 || std::abs(v) < 1e-3) std::snprintf(buf, sizeof buf, "%.0e", v);
  else std::snprintf(buf, sizeof buf, "%g", std::round(v * 1e6) / 1e6);
  return buf;
}

// "Nice" tick positions covering [lo, hi] (steps of 1, 2 or 5 times a power of ten).
std::vector<double> ticks(double lo, double hi, int target = 5) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / target, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) { step = m * mag; break; }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push_back(t);
  return out;
}

// Approximate text width in pixels at a font size.
double text_width(const std::string& s, double size) {
  std::size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  return static_cast<double>(chars) * size * 0.6;
}

std::string document(double w, double h, const std::string& body) {
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(w) << "\" height=\"" << num(h)
      << "\" viewBox=\"0 0 " << num(w) << " " << num(h) << "\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" << body << "</svg>\n";
  return out.str();
}

}  // namespace

std::string escape(const std::string& text) {
  std::string out;
  for (char c : valid_utf8(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string viridis(double t) {
  static const double anchors[][3] = {{68, 1, 84},    {72, 40, 120},  {62, 74, 137},  {49, 104, 142},
                                      {38, 130, 142}, {31, 158, 137}, {53, 183, 121}, {109, 205, 89},
                                      {180, 222, 44}, {253, 231, 37}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 9.0;
  const int i = std::min(8, static_cast<int>(t));
  const double f = t - i;
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(anchors[i][0] + f * (anchors[i + 1][0] - anchors[i][0])),
                static_cast<int>(anchors[i][1] + f * (anchors[i + 1][1] - anchors[i][1])),
                static_cast<int>(anchors[i][2] + f * (anchors[i + 1][2] - anchors[i][2])));
  return buf;
}

std::string heatmap(const Heatmap& h) {
  const std::size_t rows = h.values.size(), cols = rows ? h.values[0].size() : 0;
  const double cell = std::clamp(360.0 / static_cast<double>(std::max<std::size_t>({rows, cols, 1})), 6.0, 34.0);
  const bool sparse_labels = cell < 12;  // many cells: label every k-th one
  const std::size_t every = sparse_labels ? static_cast<std::size_t>(std::ceil(12.0 / cell)) : 1;
  const double label_size = std::min(12.0, std::max(9.0, cell * 0.45));
  double row_label_w = 0, col_label_h = 0;
  for (const auto& l : h.row_labels) row_label_w = std::max(row_label_w, text_width(l, label_size));
  for (const auto& l : h.column_labels) col_label_h = std::max(col_label_h, text_width(l, label_size));
  const double left = 30 + row_label_w + 8, top = 36 + col_label_h * 0.75 + 10;
  const double grid_w = cell * static_cast<double>(cols), grid_h = cell * static_cast<double>(rows);
  // The title starts at the left edge and the picture is as wide as it: never clipped.
  const double bar_x = left + grid_w + 18, width = std::max(bar_x + 70, text_width(h.title, 14) + 20);
  const double height = std::max(top + grid_h, top + 160) + 44;
  std::ostringstream b;
  b << "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\" " << font << ">" << escape(h.title) << "</text>\n";
  const double range = h.vmax > h.vmin ? h.vmax - h.vmin : 1.0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = h.values[r][c], t = (v - h.vmin) / range;
      b << "<rect x=\"" << num(left + cell * c) << "\" y=\"" << num(top + cell * r) << "\" width=\"" << num(cell + 0.5)
        << "\" height=\"" << num(cell + 0.5) << "\" fill=\"" << viridis(t) << "\"><title>" << escape(r < h.row_labels.size() ? h.row_labels[r] : "")
        << " -> " << escape(c < h.column_labels.size() ? h.column_labels[c] : "") << ": " << tick_label(v) << "</title></rect>\n";
      if (cell >= 26) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.2f", v);
        b << "<text x=\"" << num(left + cell * (c + 0.5)) << "\" y=\"" << num(top + cell * (r + 0.5) + 3.5)
          << "\" text-anchor=\"middle\" font-size=\"9\" fill=\"" << (t > 0.6 ? "black" : "white") << "\" " << font << ">" << buf << "</text>\n";
      }
    }
  for (std::size_t r = 0; r < rows && r < h.row_labels.size(); r += every)
    b << "<text x=\"" << num(left - 5) << "\" y=\"" << num(top + cell * (r + 0.5) + label_size * 0.35)
      << "\" text-anchor=\"end\" font-size=\"" << num(label_size) << "\" " << font << ">" << escape(h.row_labels[r]) << "</text>\n";
  for (std::size_t c = 0; c < cols && c < h.column_labels.size(); c += every) {
    const double x = left + cell * (c + 0.5), y = top - 6;
    b << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << num(label_size) << "\" " << font
      << " transform=\"rotate(-45 " << num(x) << " " << num(y) << ")\">" << escape(h.column_labels[c]) << "</text>\n";
  }
  b << "<text x=\"" << num(left + grid_w / 2) << "\" y=\"" << num(top + grid_h + 22) << "\" text-anchor=\"middle\" font-size=\"12\" " << font
    << ">" << escape(h.column_axis) << "</text>\n";
  b << "<text x=\"14\" y=\"" << num(top + grid_h / 2) << "\" text-anchor=\"middle\" font-size=\"12\" " << font << " transform=\"rotate(-90 14 "
    << num(top + grid_h / 2) << ")\">" << escape(h.row_axis) << "</text>\n";
  // Colour bar with ticks: the legend of the scale.
  const double bar_h = std::max(grid_h, 150.0);
  for (int i = 0; i < 50; ++i)
    b << "<rect x=\"" << num(bar_x) << "\" y=\"" << num(top + bar_h * (49 - i) / 50.0) << "\" width=\"14\" height=\"" << num(bar_h / 50.0 + 0.5)
      << "\" fill=\"" << viridis(i / 49.0) << "\"/>\n";
  for (double t : ticks(h.vmin, h.vmax, 4)) {
    const double y = top + bar_h * (1.0 - (t - h.vmin) / range);
    b << "<line x1=\"" << num(bar_x + 14) << "\" x2=\"" << num(bar_x + 18) << "\" y1=\"" << num(y) << "\" y2=\"" << num(y) << "\" stroke=\"black\"/>\n"
      << "<text x=\"" << num(bar_x + 21) << "\" y=\"" << num(y + 4) << "\" font-size=\"10\" " << font << ">" << tick_label(t) << "</text>\n";
  }
  b << "<text x=\"" << num(bar_x + 7) << "\" y=\"" << num(top - 8) << "\" text-anchor=\"middle\" font-size=\"10\" " << font << ">weight</text>\n";
  return document(width, height, b.str());
}

std::string chart(const Chart& c) {
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (const Series& s : c.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]), y0 = std::min(y0, s.y[i]), y1 = std::max(y1, s.y[i]);
    }
  if (x0 > x1) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (y1 - y0 < 1e-12) y0 -= 0.5, y1 += 0.5;
  const double pad = (y1 - y0) * 0.05;
  y0 -= pad, y1 += pad;
  if (x1 - x0 < 1e-12) x0 -= 0.5, x1 += 0.5;
  const double left = 64, top = 34, w = 440, h = 260;
  double legend_w = 0;
  for (const Series& s : c.series) legend_w = std::max(legend_w, text_width(s.name, 11));
  const double width = std::max(left + w + 30 + legend_w + 30, text_width(c.title, 14) + 20), height = top + h + 50;
  auto X = [&](double x) { return left + (x - x0) / (x1 - x0) * w; };
  auto Y = [&](double y) { return top + h - (y - y0) / (y1 - y0) * h; };
  std::ostringstream b;
  b << "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\" " << font << ">" << escape(c.title) << "</text>\n";
  for (double t : ticks(x0, x1))
    b << "<line x1=\"" << num(X(t)) << "\" x2=\"" << num(X(t)) << "\" y1=\"" << num(top) << "\" y2=\"" << num(top + h) << "\" stroke=\"#e5e5e5\"/>\n"
      << "<text x=\"" << num(X(t)) << "\" y=\"" << num(top + h + 15) << "\" text-anchor=\"middle\" font-size=\"10\" " << font << ">"
      << tick_label(t) << "</text>\n";
  for (double t : ticks(y0, y1))
    b << "<line x1=\"" << num(left) << "\" x2=\"" << num(left + w) << "\" y1=\"" << num(Y(t)) << "\" y2=\"" << num(Y(t)) << "\" stroke=\"#e5e5e5\"/>\n"
      << "<text x=\"" << num(left - 6) << "\" y=\"" << num(Y(t) + 3.5) << "\" text-anchor=\"end\" font-size=\"10\" " << font << ">"
      << tick_label(t) << "</text>\n";
  b << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(w) << "\" height=\"" << num(h)
    << "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const Series& s = c.series[k];
    const std::string colour = palette[static_cast<std::size_t>(s.colour >= 0 ? s.colour : static_cast<int>(k)) % 10];
    if (s.style == Series::Style::points) {
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
        if (std::isfinite(s.y[i]))
          b << "<circle cx=\"" << num(X(s.x[i])) << "\" cy=\"" << num(Y(s.y[i])) << "\" r=\"2.8\" fill=\"" << colour << "\" fill-opacity=\"0.75\"/>\n";
    } else {
      std::string d;
      bool pen_down = false;
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if (!std::isfinite(s.y[i])) { pen_down = false; continue; }
        d += (pen_down ? " L" : " M") + num(X(s.x[i])) + " " + num(Y(s.y[i]));
        pen_down = true;
      }
      b << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\""
        << (s.style == Series::Style::dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
    }
    const double ly = top + 10 + 18.0 * static_cast<double>(k);
    if (s.style == Series::Style::points)
      b << "<circle cx=\"" << num(left + w + 30) << "\" cy=\"" << num(ly - 4) << "\" r=\"3\" fill=\"" << colour << "\"/>\n";
    else
      b << "<line x1=\"" << num(left + w + 20) << "\" x2=\"" << num(left + w + 40) << "\" y1=\"" << num(ly - 4) << "\" y2=\"" << num(ly - 4)
        << "\" stroke=\"" << colour << "\" stroke-width=\"2\"" << (s.style == Series::Style::dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
    b << "<text x=\"" << num(left + w + 46) << "\" y=\"" << num(ly) << "\" font-size=\"11\" " << font << ">" << escape(s.name) << "</text>\n";
  }
  b << "<text x=\"" << num(left + w / 2) << "\" y=\"" << num(top + h + 36) << "\" text-anchor=\"middle\" font-size=\"12\" " << font << ">"
    << escape(c.x_axis) << "</text>\n";
  b << "<text x=\"16\" y=\"" << num(top + h / 2) << "\" text-anchor=\"middle\" font-size=\"12\" " << font << " transform=\"rotate(-90 16 "
    << num(top + h / 2) << ")\">" << escape(c.y_axis) << "</text>\n";
  return document(width, height, b.str());
}

std::string graph(const GraphDrawing& g) {
  const double side = 420, margin = 30, top = 34, bottom = g.legend.empty() ? 10 : 26;
  const auto at = [&](std::size_t i) {
    return std::pair<double, double>{margin + g.positions[i].first * side, top + g.positions[i].second * side};
  };
  double largest = 0.0;
  for (const GraphDrawing::Edge& e : g.edges) largest = std::max(largest, e.weight);
  std::ostringstream body;
  body << "<text x=\"" << num(margin) << "\" y=\"20\" " << font << " font-size=\"13\">" << escape(g.title) << "</text>\n";
  for (const GraphDrawing::Edge& e : g.edges) {
    const double t = largest > 0 ? e.weight / largest : 0.0;
    const auto [x1, y1] = at(e.a);
    const auto [x2, y2] = at(e.b);
    body << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\"" << num(y2)
         << "\" stroke=\"#333\" stroke-opacity=\"" << num(0.15 + 0.85 * t) << "\" stroke-width=\"" << num(0.5 + 7.5 * t)
         << "\"><title>" << escape(g.labels[e.a] + " - " + g.labels[e.b]) << ": " << tick_label(e.weight) << "</title></line>\n";
  }
  for (std::size_t i = 0; i < g.positions.size(); ++i) {
    const auto [x, y] = at(i);
    const int c = i < g.classes.size() ? g.classes[i] : -1;
    const bool ring = i < g.ringed.size() && g.ringed[i];
    body << "<circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"9\" fill=\"" << (c < 0 ? "#bbb" : palette[c % 10])
         << "\" stroke=\"black\" stroke-width=\"" << (ring ? "3" : "1") << "\"/>\n"
         << "<text x=\"" << num(x) << "\" y=\"" << num(y + 3.5) << "\" text-anchor=\"middle\" " << font
         << " font-size=\"9\" fill=\"white\">" << escape(g.labels[i]) << "</text>\n";
  }
  if (!g.legend.empty())
    body << "<text x=\"" << num(margin) << "\" y=\"" << num(top + side + 20) << "\" " << font << " font-size=\"11\">"
         << escape(g.legend) << "</text>\n";
  return document(side + 2 * margin, top + side + bottom + 10, body.str());
}

std::string image_overlay(const ImageOverlay& o) {
  const double side = 192, margin = 10, top = 30, cw = side / static_cast<double>(o.grid_cols), ch = side / static_cast<double>(o.grid_rows);
  std::ostringstream body;
  body << "<text x=\"" << num(margin) << "\" y=\"18\" " << font << " font-size=\"12\">" << escape(o.title) << "</text>\n"
       << "<image x=\"" << num(margin) << "\" y=\"" << num(top) << "\" width=\"" << num(side) << "\" height=\"" << num(side)
       << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64," << o.png_base64 << "\"/>\n";
  for (std::size_t r = 0; r < o.grid_rows; ++r)
    for (std::size_t c = 0; c < o.grid_cols; ++c) {
      const double w = o.weights[r * o.grid_cols + c], t = o.vmax > 0 ? std::clamp(w / o.vmax, 0.0, 1.0) : 0.0;
      body << "<rect x=\"" << num(margin + static_cast<double>(c) * cw) << "\" y=\"" << num(top + static_cast<double>(r) * ch)
           << "\" width=\"" << num(cw) << "\" height=\"" << num(ch) << "\" fill=\"#ff3300\" fill-opacity=\"" << num(0.75 * t)
           << "\" stroke=\"#ffffff\" stroke-opacity=\"0.3\" stroke-width=\"0.5\"><title>(" << r << "," << c << "): " << tick_label(w)
           << "</title></rect>\n";
    }
  if (!o.caption.empty())
    body << "<text x=\"" << num(margin) << "\" y=\"" << num(top + side + 16) << "\" " << font << " font-size=\"11\">" << escape(o.caption)
         << "</text>\n";
  return document(side + 2 * margin, top + side + (o.caption.empty() ? 10 : 26), body.str());
}

std::string grid(const std::vector<std::string>& pictures, std::size_t columns, const std::string& title) {
  // Read each picture's size back from its root element.
  auto size_of = [](const std::string& s) {
    double w = 0, h = 0;
    std::sscanf(s.c_str() + s.find("width=\"") + 7, "%lf", &w);
    std::sscanf(s.c_str() + s.find("height=\"") + 8, "%lf", &h);
    return std::pair<double, double>{w, h};
  };
  const double title_h = title.empty() ? 0 : 30;
  double x = 0, y = title_h, row_h = 0, width = 0;
  std::ostringstream b;
  if (!title.empty())
    b << "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\" " << font << ">" << escape(title) << "</text>\n";
  for (std::size_t i = 0; i < pictures.size(); ++i) {
    if (i && i % std::max<std::size_t>(columns, 1) == 0) x = 0, y += row_h, row_h = 0;
    const auto [w, h] = size_of(pictures[i]);
    std::string inner = pictures[i];
    inner.replace(0, 4, "<svg x=\"" + num(x) + "\" y=\"" + num(y) + "\"");
    b << inner;
    x += w, row_h = std::max(row_h, h), width = std::max(width, x);
  }
  return document(std::max(width, text_width(title, 15) + 20), y + row_h, b.str());
}

}  // namespace attn::svg
