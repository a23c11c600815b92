#include "lab/analysis/inspect.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "lab/results/results_format.hpp"
#include "lab/results/summary.hpp"
#include "lab/results/hdf5_file.hpp"
#include "attnlab/suggest.hpp"

namespace attn {
namespace {

void flatten(const YAML::Node& n, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it)
      flatten(it->second, prefix.empty() ? it->first.as<std::string>() : prefix + "." + it->first.as<std::string>(), out);
  } else if (n.IsSequence()) {
    std::string s = "[";
    for (std::size_t i = 0; i < n.size(); ++i) s += (i ? ", " : "") + n[i].as<std::string>();
    out[prefix] = s + "]";
  } else if (n.IsScalar()) {
    out[prefix] = n.as<std::string>();
  }
}

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace

namespace {

// Runs with their status, epochs, wall time and final metrics, then the errors of failed ones.
void runs_table(const std::vector<RunInfo>& runs, std::ostringstream& out) {
  std::set<std::string> metric_names;
  for (const RunInfo& r : runs)
    for (const auto& kv : r.metrics) metric_names.insert(kv.first);
  std::vector<std::vector<std::string>> table = {{"run", "status", "epochs", "wall s"}};
  for (const std::string& m : metric_names) table[0].push_back(m);
  for (const RunInfo& r : runs) {
    std::vector<std::string> row = {r.id, to_string(r.status), std::to_string(r.epochs_done), format_number(r.wall_seconds)};
    for (const std::string& m : metric_names) row.push_back(r.metrics.count(m) ? format_number(r.metrics.at(m)) : "-");
    table.push_back(row);
  }
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : table) {
    for (std::size_t i = 0; i < row.size(); ++i) out << row[i] << std::string(width[i] - row[i].size() + 2, ' ');
    out << "\n";
  }
  for (const RunInfo& r : runs)
    if (!r.error.empty()) out << "  " << r.id << " failed: " << r.error << "\n";
}

// The config keys whose values differ between runs.
void config_differences(const ResultsReader& file, const std::vector<RunInfo>& runs, std::ostringstream& out) {
  std::map<std::string, std::map<std::string, std::string>> configs;
  for (const RunInfo& r : runs) flatten(YAML::Load(file.config(r.id)), "", configs[r.id]);
  std::map<std::string, std::set<std::string>> values;
  for (const auto& [id, config] : configs)
    for (const auto& [k, v] : config) values[k].insert(v);
  out << "\nconfiguration differences between runs:";
  bool any = false;
  for (const auto& [k, vs] : values) {
    const std::string& key = k;  // (a structured binding cannot be captured in C++17)
    const bool missing_somewhere =
        std::any_of(configs.begin(), configs.end(), [&](const auto& c) { return !c.second.count(key); });
    if (vs.size() > 1 || (configs.size() > 1 && missing_somewhere)) {
      std::string list;
      for (const auto& v : vs) list += (list.empty() ? "" : ", ") + v;
      out << "\n  " << k << ": " << list;
      any = true;
    }
  }
  out << (any ? "\n" : " none (a single configuration)\n");
}

void maps_stored(const ResultsReader& file, const std::vector<RunInfo>& runs, std::ostringstream& out) {
  out << "\nattention maps stored:\n";
  for (const RunInfo& r : runs) {
    std::string line;
    for (const std::string& ex : file.examples(r.id))
      for (const std::string& m : file.map_names(r.id, ex))
        line += (line.empty() ? "" : "; ") + ex + "/" + m + " " + shape_text(file.map_shape(r.id, ex, m));
    out << "  " << r.id << ": " << (line.empty() ? "none" : line) << "\n";
  }
  out << "\n[layer, head, n_q, n_k]; draw them with: attnlab plot " << file.path() << " --run RUN --attention\n";
}

}  // namespace

std::string inspect_results(const std::string& path) {
  const ResultsReader file(path);
  const ResultsHeader h = file.header();
  const std::vector<RunInfo> runs = file.runs();
  std::ostringstream out;
  out << path << ": attnlab results (attnlab " << h.attnlab_version << ", format " << h.format_version << "), spec '"
      << h.name << "' from " << h.spec_path << ", created " << h.created << "\n"
      << runs.size() << " of " << h.planned_runs << " planned runs written\n\n";
  runs_table(runs, out);
  config_differences(file, runs, out);
  maps_stored(file, runs, out);
  return out.str();
}

std::string inspect_run(const std::string& path, const std::string& run) {
  const ResultsReader file(path);
  const std::string g = file.run_group(run);
  const Hdf5File& f = file.hdf5();
  std::ostringstream out;
  std::function<void(const std::string&, int)> walk = [&](const std::string& p, int depth) {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    for (const std::string& a : f.attr_names(p)) {
      if (ResultsReader::is_config_attribute(a)) continue;
      std::string v;
      switch (f.attr_type(p, a)) {
        case Hdf5File::AttrType::string:
          v = f.attr_string(p, a);
          if (v.size() > 60 || v.find('\n') != std::string::npos) v = v.substr(0, std::min(v.find('\n'), std::size_t{60})) + " ...";
          break;
        case Hdf5File::AttrType::integer: v = std::to_string(f.attr_long(p, a)); break;
        case Hdf5File::AttrType::real: v = format_number(f.attr_double(p, a)); break;
        default: v = "(other type)";
      }
      out << pad << "@" << a << " = " << v << "\n";
    }
    for (const std::string& c : f.children(p)) {
      const std::string child = p + "/" + c;
      if (f.is_group(child)) {
        out << pad << c << "/\n";
        walk(child, depth + 1);
      } else {
        out << pad << c << "  " << shape_text(f.shape(child)) << "\n";
      }
    }
  };
  out << g << "\n";
  walk(g, 1);
  out << "\nconfig:\n" << file.config(run) << "\n";
  return out.str();
}

}  // namespace attn
