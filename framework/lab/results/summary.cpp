#include "lab/results/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace attn {

Summary summarize(const std::vector<RunInfo>& runs) {
  Summary s;
  std::set<std::string> names;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RunInfo*>> groups;
  for (const RunInfo& r : runs) {
    std::string point;
    for (const auto& [k, v] : r.point)
      if (k != "seed") point += (point.empty() ? "" : ", ") + k.substr(k.find_last_of('.') + 1) + "=" + v;
    if (point.empty()) point = "(single point)";
    if (!groups.count(point)) order.push_back(point);
    groups[point].push_back(&r);
    for (const auto& kv : r.metrics) names.insert(kv.first);
  }
  // Losses first, then the rest alphabetically.
  s.metrics.assign(names.begin(), names.end());
  std::stable_partition(s.metrics.begin(), s.metrics.end(), [](const std::string& m) { return m.find("loss") != std::string::npos; });
  for (const std::string& point : order) {
    SummaryRow row;
    row.point = point;
    double wall = 0;
    for (const RunInfo* r : groups[point]) {
      ++row.runs;
      wall += r->wall_seconds;
      if (succeeded(r->status)) ++row.ok;
    }
    row.wall_mean = wall / static_cast<double>(row.runs);
    for (const std::string& m : s.metrics) {
      std::vector<double> v;
      for (const RunInfo* r : groups[point])
        if (succeeded(r->status) && r->metrics.count(m)) v.push_back(r->metrics.at(m));
      if (v.empty()) continue;
      double mean = 0, var = 0;
      for (double x : v) mean += x;
      mean /= static_cast<double>(v.size());
      for (double x : v) var += (x - mean) * (x - mean);
      row.metrics[m] = {mean, v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size() - 1)) : 0.0};
    }
    s.rows.push_back(std::move(row));
  }
  return s;
}

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::abs(v) >= 1000 || (std::abs(v) < 1e-3 && v != 0) ? "%.3g" : "%.4f", v);
  return buf;
}

}  // namespace

std::string format_summary(const Summary& s, TableFormat format) {
  std::vector<std::string> header = {"sweep point", "runs ok"};
  for (const auto& m : s.metrics) header.push_back(m);
  header.push_back("wall s");
  std::vector<std::vector<std::string>> cells;
  for (const SummaryRow& r : s.rows) {
    std::vector<std::string> line = {r.point, std::to_string(r.ok) + "/" + std::to_string(r.runs)};
    for (const auto& m : s.metrics) {
      const auto it = r.metrics.find(m);
      if (it == r.metrics.end()) line.push_back("-");
      else if (format == TableFormat::csv) line.push_back(number(it->second.first));
      else line.push_back(number(it->second.first) + (r.ok > 1 ? " ± " + number(it->second.second) : ""));
    }
    line.push_back(number(r.wall_mean));
    cells.push_back(std::move(line));
  }
  std::string out;
  if (format == TableFormat::csv) {
    std::vector<std::string> h = {"sweep_point", "runs", "ok"};
    for (const auto& m : s.metrics) h.push_back(m + "_mean"), h.push_back(m + "_std");
    h.push_back("wall_seconds_mean");
    for (std::size_t i = 0; i < h.size(); ++i) out += (i ? "," : "") + h[i];
    out += "\n";
    for (const SummaryRow& r : s.rows) {
      out += "\"" + r.point + "\"," + std::to_string(r.runs) + "," + std::to_string(r.ok);
      for (const auto& m : s.metrics) {
        const auto it = r.metrics.find(m);
        out += it == r.metrics.end() ? ",," : "," + number(it->second.first) + "," + number(it->second.second);
      }
      out += "," + number(r.wall_mean) + "\n";
    }
    return out;
  }
  // Display widths count UTF-8 characters (the ± sign is two bytes).
  auto width = [](const std::string& t) {
    std::size_t n = 0;
    for (unsigned char c : t) n += (c & 0xC0) != 0x80;
    return n;
  };
  std::vector<std::size_t> w(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    w[i] = width(header[i]);
    for (const auto& line : cells) w[i] = std::max(w[i], width(line[i]));
  }
  auto row = [&](const std::vector<std::string>& line) {
    std::string r = format == TableFormat::markdown ? "| " : "";
    for (std::size_t i = 0; i < line.size(); ++i) {
      r += line[i] + std::string(w[i] - width(line[i]), ' ');
      r += format == TableFormat::markdown ? " | " : (i + 1 < line.size() ? "  " : "");
    }
    while (!r.empty() && r.back() == ' ') r.pop_back();
    return r + "\n";
  };
  out += row(header);
  if (format == TableFormat::markdown) {
    out += "|";
    for (std::size_t i = 0; i < header.size(); ++i) out += " " + std::string(std::max<std::size_t>(w[i], 3), '-') + " |";
    out += "\n";
  } else {
    std::size_t total = 0;
    for (std::size_t x : w) total += x + 2;
    out += std::string(total - 2, '-') + "\n";
  }
  for (const auto& line : cells) out += row(line);
  return out;
}

}  // namespace attn
