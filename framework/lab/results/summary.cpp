#include "lab/results/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <set>

namespace attn {

std::string sweep_point_label(const SweepPoint& point) {
  std::string label;
  for (const auto& [k, v] : point)
    if (k != "seed") label += (label.empty() ? "" : ", ") + k.substr(k.find_last_of('.') + 1) + "=" + v;
  return label.empty() ? "(single point)" : label;
}

std::pair<double, double> mean_and_std(const std::vector<double>& v) {
  if (v.empty()) return {std::nan(""), std::nan("")};
  double mean = 0, var = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double x : v) var += (x - mean) * (x - mean);
  return {mean, v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size() - 1)) : 0.0};
}

std::string format_mean_std(const std::vector<double>& values) {
  if (values.empty()) return "-";
  const auto [mean, std] = mean_and_std(values);
  return format_number(mean) + (values.size() > 1 ? " ± " + format_number(std) : "");
}

Summary summarize(const std::vector<RunInfo>& runs) {
  Summary s;
  std::set<std::string> names;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RunInfo*>> groups;
  for (const RunInfo& r : runs) {
    const std::string point = sweep_point_label(r.point);
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
      if (!v.empty()) row.metrics[m] = mean_and_std(v);
    }
    s.rows.push_back(std::move(row));
  }
  return s;
}

namespace {

// Attention metrics ("attention.<map>.<metric>") get a table of their own, one row per sweep
// point and map kind.
const std::string attention_prefix = "attention.";

// One rounding rule for every table a person reads (compare, report, inspect): 4 decimals, or
// 3 significant digits for the very large and very small. CSV keeps full precision.
std::string cell(double v, TableFormat format) {
  char buf[40];
  if (format == TableFormat::csv) std::snprintf(buf, sizeof buf, "%.17g", v);
  else std::snprintf(buf, sizeof buf, std::abs(v) >= 1000 || (std::abs(v) < 1e-3 && v != 0) ? "%.3g" : "%.4f", v);
  return buf;
}

std::string mean_std(const SummaryRow& r, const std::string& metric) {
  const auto it = r.metrics.find(metric);
  if (it == r.metrics.end()) return "-";
  return format_number(it->second.first) + (r.ok > 1 ? " ± " + format_number(it->second.second) : "");
}

// Display widths count UTF-8 characters (the ± sign is two bytes).
std::size_t display_width(const std::string& t) {
  std::size_t n = 0;
  for (unsigned char c : t) n += (c & 0xC0) != 0x80;
  return n;
}

// A classifier's per-class metrics ("valid_accuracy.<class>", classifier.hpp) get a table of
// their own too, one row per sweep point and class.
const std::vector<std::string> per_class_prefixes = {"valid_accuracy.", "trainset_accuracy."};

}  // namespace

bool is_attention_metric(const std::string& m) { return m.rfind(attention_prefix, 0) == 0; }

bool is_length_metric(const std::string& m) {
  const std::size_t at = m.rfind('@');
  return at != std::string::npos && at + 1 < m.size() &&
         std::all_of(m.begin() + static_cast<std::ptrdiff_t>(at + 1), m.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::pair<std::string, std::size_t> length_metric_parts(const std::string& m) {
  const std::size_t at = m.rfind('@');
  return {m.substr(0, at), static_cast<std::size_t>(std::stoull(m.substr(at + 1)))};
}

std::string length_metric_name(const std::string& metric, std::size_t length) { return metric + "@" + std::to_string(length); }

bool is_per_class_metric(const std::string& m) {
  if (is_length_metric(m)) return false;  // (at another length: the tables by length)
  return std::any_of(per_class_prefixes.begin(), per_class_prefixes.end(), [&](const std::string& p) { return m.rfind(p, 0) == 0; });
}

std::pair<std::string, std::string> attention_metric_parts(const std::string& m) {
  const std::string rest = m.substr(attention_prefix.size());
  return {rest.substr(0, rest.find('.')), rest.substr(rest.find('.') + 1)};
}

namespace {

// The columns `shown` of a table as aligned text: the header, a rule, the rows.
std::string aligned_text(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& cells,
                         const std::vector<std::size_t>& shown, const std::vector<std::size_t>& w) {
  const auto row = [&](const std::vector<std::string>& line) {
    std::string r;
    for (std::size_t i : shown) r += line[i] + std::string(w[i] - display_width(line[i]), ' ') + "  ";
    while (!r.empty() && r.back() == ' ') r.pop_back();
    return r + "\n";
  };
  std::size_t total = 0;
  for (std::size_t i : shown) total += w[i] + 2;
  std::string out = row(header) + std::string(total - 2, '-') + "\n";
  for (const auto& line : cells) out += row(line);
  return out;
}

std::vector<std::size_t> column_widths(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::size_t> w(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    w[i] = display_width(header[i]);
    for (const auto& line : cells) w[i] = std::max(w[i], display_width(line[i]));
  }
  return w;
}

// A Markdown cell: a '|' inside is escaped, so that it does not end the cell.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string markdown_table(std::vector<std::string> header, std::vector<std::vector<std::string>> cells) {
  for (std::string& h : header) h = markdown_cell(h);
  for (auto& line : cells)
    for (std::string& c : line) c = markdown_cell(c);
  const std::vector<std::size_t> w = column_widths(header, cells);
  const auto row = [&](const std::vector<std::string>& line) {
    std::string r = "|";
    for (std::size_t i = 0; i < line.size(); ++i) r += " " + line[i] + std::string(w[i] - display_width(line[i]), ' ') + " |";
    return r + "\n";
  };
  std::string out = row(header) + "|";
  for (std::size_t x : w) out += " " + std::string(std::max<std::size_t>(x, 3), '-') + " |";
  out += "\n";
  for (const auto& line : cells) out += row(line);
  return out;
}

}  // namespace

std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& cells, TableFormat format,
                         std::size_t keys) {
  if (format == TableFormat::markdown) return markdown_table(header, cells);
  const std::vector<std::size_t> w = column_widths(header, cells);
  // Text: the columns in parts no wider than table_columns, each part led by the key columns.
  keys = std::min(keys, header.size());
  std::vector<std::size_t> part;
  std::size_t width = 0;
  const auto start_part = [&] {
    part.clear(), width = 0;
    for (std::size_t i = 0; i < keys; ++i) part.push_back(i), width += w[i] + 2;
  };
  std::string out;
  start_part();
  for (std::size_t i = keys; i < header.size(); ++i) {
    if (part.size() > keys && width + w[i] > table_columns) {
      out += aligned_text(header, cells, part, w) + "\n";
      start_part();
    }
    part.push_back(i), width += w[i] + 2;
  }
  return out + aligned_text(header, cells, part, w);
}

namespace {

// A CSV field (RFC 4180): quoted, a quote inside doubled.
std::string csv_field(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Every column, named as the file's /summary datasets, at full precision.
std::string csv_table(const Summary& s) {
  std::string out = "sweep_point,runs,runs_ok";
  for (const auto& m : s.metrics) out += "," + m + "_mean," + m + "_std";
  out += ",wall_seconds_mean\n";
  for (const SummaryRow& r : s.rows) {
    out += csv_field(r.point) + "," + std::to_string(r.runs) + "," + std::to_string(r.ok);
    for (const auto& m : s.metrics) {
      const auto it = r.metrics.find(m);
      out += it == r.metrics.end() ? ",," : "," + cell(it->second.first, TableFormat::csv) + "," + cell(it->second.second, TableFormat::csv);
    }
    out += "," + cell(r.wall_mean, TableFormat::csv) + "\n";
  }
  return out;
}

// sweep point x map kind -> each attention metric (mean over layers and heads, then ± over seeds).
std::optional<Table> attention_table(const Summary& s) {
  std::vector<std::string> maps, metrics;
  for (const std::string& m : s.metrics) {
    if (!is_attention_metric(m)) continue;
    const auto [map, metric] = attention_metric_parts(m);
    if (std::find(maps.begin(), maps.end(), map) == maps.end()) maps.push_back(map);
    if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) metrics.push_back(metric);
  }
  if (maps.empty()) return std::nullopt;
  Table t{"attention on the probe set (mean over layers and heads; per layer and head: /runs/<id>/attention_metrics)",
          {"sweep point", "map"}, {}, 2};
  t.header.insert(t.header.end(), metrics.begin(), metrics.end());
  for (const SummaryRow& r : s.rows)
    for (const std::string& map : maps) {
      std::vector<std::string> line = {r.point, map};
      for (const std::string& metric : metrics) line.push_back(mean_std(r, attention_prefix + map + "." + metric));
      t.cells.push_back(std::move(line));
    }
  return t;
}

// sweep point x class -> each per-class metric (± over seeds).
std::optional<Table> class_table(const Summary& s) {
  std::vector<std::string> classes, metrics;
  for (const std::string& m : s.metrics) {
    if (!is_per_class_metric(m)) continue;
    const std::string metric = m.substr(0, m.find('.')), name = m.substr(m.find('.') + 1);
    if (std::find(classes.begin(), classes.end(), name) == classes.end()) classes.push_back(name);
    if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) metrics.push_back(metric);
  }
  if (classes.empty()) return std::nullopt;
  Table t{"per class (the confusion matrix: /runs/<id>/data/confusion)", {"sweep point", "class"}, {}, 2};
  t.header.insert(t.header.end(), metrics.begin(), metrics.end());
  for (const SummaryRow& r : s.rows)
    for (const std::string& name : classes) {
      std::vector<std::string> line = {r.point, name};
      for (const std::string& metric : metrics) line.push_back(mean_std(r, metric + "." + name));
      if (std::any_of(line.begin() + 2, line.end(), [](const std::string& v) { return v != "-"; }))
        t.cells.push_back(std::move(line));  // (a point whose data has no such class has no row)
    }
  return t;
}

// The metrics a table by length shows (others: the CSV), in this order, when the runs report them.
const std::vector<std::string> length_headlines = {"valid_ppl", "valid_exact_match", "valid_token_acc", "valid_accuracy"};

// sweep point x length -> one headline metric (± over seeds), a table per metric.
std::vector<Table> length_tables(const Summary& s) {
  std::vector<Table> out;
  for (const std::string& headline : length_headlines) {
    std::vector<std::size_t> lengths;
    for (const std::string& m : s.metrics)
      if (is_length_metric(m) && length_metric_parts(m).first == headline) lengths.push_back(length_metric_parts(m).second);
    if (lengths.empty()) continue;
    std::sort(lengths.begin(), lengths.end());
    Table t{headline + " at each evaluated length (evaluation.lengths; per run: /runs/<id>/lengths)", {"sweep point"}, {}};
    for (const std::size_t l : lengths) t.header.push_back(std::to_string(l));
    for (const SummaryRow& r : s.rows) {
      std::vector<std::string> line = {r.point};
      for (const std::size_t l : lengths) line.push_back(mean_std(r, length_metric_name(headline, l)));
      t.cells.push_back(std::move(line));
    }
    out.push_back(std::move(t));
  }
  return out;
}

bool in_main_table(const std::string& m) { return !is_attention_metric(m) && !is_per_class_metric(m) && !is_length_metric(m); }

}  // namespace

std::string format_number(double v) { return cell(v, TableFormat::text); }

std::vector<std::string> main_table_metrics(const Summary& s) {
  std::vector<std::string> out;
  std::copy_if(s.metrics.begin(), s.metrics.end(), std::back_inserter(out), in_main_table);
  return out;
}

std::vector<std::string> headline_metrics(const Summary& s) {
  const auto has = [&](const std::string& m) { return std::find(s.metrics.begin(), s.metrics.end(), m) != s.metrics.end(); };
  std::vector<std::string> out;
  if (has("valid_loss")) out.push_back("valid_loss");
  else if (has("train_loss")) out.push_back("train_loss");
  for (const char* m : {"valid_exact_match", "valid_bleu", "valid_ppl", "valid_bits_per_token", "valid_accuracy", "test_mse"})
    if (has(m) && out.size() < 3) out.push_back(m);
  return out.empty() ? main_table_metrics(s) : out;
}

std::vector<Table> summary_tables(const Summary& s, const std::vector<std::string>& shown) {
  Table main{"", {"sweep point", "runs ok"}, {}};
  main.header.insert(main.header.end(), shown.begin(), shown.end());
  main.header.push_back("wall s");
  for (const SummaryRow& r : s.rows) {
    std::vector<std::string> line = {r.point, std::to_string(r.ok) + "/" + std::to_string(r.runs)};
    for (const auto& m : shown) line.push_back(mean_std(r, m));
    line.push_back(format_number(r.wall_mean));
    main.cells.push_back(std::move(line));
  }
  std::vector<Table> tables = {std::move(main)};
  for (Table& t : length_tables(s)) tables.push_back(std::move(t));
  if (auto per_class = class_table(s)) tables.push_back(std::move(*per_class));
  if (auto attention = attention_table(s)) tables.push_back(std::move(*attention));
  return tables;
}

std::string format_summary(const Summary& s, TableFormat format, const std::vector<std::string>& shown) {
  if (format == TableFormat::csv) return csv_table(s);
  std::string out;
  for (const Table& t : summary_tables(s, shown))
    out += (t.caption.empty() ? "" : "\n" + t.caption + "\n") + render_table(t.header, t.cells, format, t.keys);
  return out;
}

}  // namespace attn
