#include "attnlab/data/text.hpp"
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

// `items` joined by "; " after `prefix`, broken before the line would pass 100 characters
// (continuation lines indented under the first item).
std::string wrapped(const std::string& prefix, const std::vector<std::string>& items) {
  std::string out = prefix, line = prefix;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = (i ? "; " : "") + items[i];
    if (i && line.size() + piece.size() > 100) {
      out += ";\n" + std::string(prefix.size(), ' ') + items[i];
      line = std::string(prefix.size(), ' ') + items[i];
    } else {
      out += piece, line += piece;
    }
  }
  return out + "\n";
}

// Runs with their status, epochs, wall time and final metrics, then their attention metrics
// (one row per run and map kind), then the errors of failed ones.
void runs_table(const std::vector<RunInfo>& runs, std::ostringstream& out) {
  std::set<std::string> metric_names, maps, attention;
  for (const RunInfo& r : runs)
    for (const auto& kv : r.metrics) {
      if (!is_attention_metric(kv.first)) metric_names.insert(kv.first);
      else maps.insert(attention_metric_parts(kv.first).first), attention.insert(attention_metric_parts(kv.first).second);
    }
  std::vector<std::string> header = {"run", "status", "epochs", "wall s"}, attention_header = {"run", "map"};
  header.insert(header.end(), metric_names.begin(), metric_names.end());
  attention_header.insert(attention_header.end(), attention.begin(), attention.end());
  const auto value = [](const RunInfo& r, const std::string& m) { return r.metrics.count(m) ? format_number(r.metrics.at(m)) : "-"; };
  std::vector<std::vector<std::string>> rows, attention_rows;
  for (const RunInfo& r : runs) {
    rows.push_back({r.id, to_string(r.status), std::to_string(r.epochs_done), format_number(r.wall_seconds)});
    for (const std::string& m : metric_names) rows.back().push_back(value(r, m));
    for (const std::string& map : maps) {
      attention_rows.push_back({r.id, map});
      for (const std::string& m : attention) attention_rows.back().push_back(value(r, "attention." + map + "." + m));
    }
  }
  out << render_table(header, rows, TableFormat::text);
  if (!attention_rows.empty())
    out << "\nattention on the probe set (mean over layers and heads; per layer and head: /runs/<id>/attention_metrics)\n"
        << render_table(attention_header, attention_rows, TableFormat::text);
  for (const RunInfo& r : runs)
    if (!r.error.empty()) out << "  " << r.id << " failed: " << r.error << "\n";
}

// Whether each run's parameters are those it was trained to (params_checksum.hpp).
void parameter_checks(const ResultsReader& file, const std::vector<RunInfo>& runs, std::ostringstream& out) {
  std::size_t checked = 0;
  std::vector<std::string> edited;
  for (const RunInfo& r : runs) {
    const ParamsCheck c = file.check_params(r.id);
    checked += c.checked() ? 1 : 0;
    if (c.edited()) edited.push_back(c.warning(r.id));
  }
  out << "\nparameters: ";
  if (checked == 0) out << "not checked (no run has a params_checksum: a file of format 6 or older)\n";
  else if (edited.empty()) out << "the " << checked << " checked run(s) hold the parameters they were trained to\n";
  else out << edited.size() << " run(s) EDITED after training:\n";
  for (const std::string& e : edited) out << "  " << e << "\n";
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
    std::vector<std::string> items;
    for (const std::string& ex : file.examples(r.id))
      for (const std::string& m : file.map_names(r.id, ex)) items.push_back(ex + "/" + m + " " + shape_text(file.map_shape(r.id, ex, m)));
    out << wrapped("  " + r.id + ": ", items.empty() ? std::vector<std::string>{"none"} : items);
  }
  out << "\n[layer, head, n_q, n_k]; draw them with: attnlab plot " << file.path() << " --run RUN --attention\n";
}

}  // namespace

std::string inspect_results(const std::string& path) {
  const ResultsReader file(path);
  const ResultsHeader h = file.header();
  const std::vector<RunInfo> runs = file.runs();
  std::ostringstream out;
  out << path << ": attnlab results (attnlab " << h.attnlab_version << ", format " << h.format_version << ")\n"
      << "spec '" << h.name << "' from " << h.spec_path << ", created " << h.created << "\n"
      << runs.size() << " of " << h.planned_runs << " planned runs written\n\n";
  runs_table(runs, out);
  parameter_checks(file, runs, out);
  config_differences(file, runs, out);
  maps_stored(file, runs, out);
  return out.str();
}

std::string inspect_run(const std::string& path, const std::string& run) {
  const ResultsReader file(path);
  const std::string g = file.run_group(run);
  const Hdf5File& f = file.hdf5();
  std::ostringstream out;
  std::set<unsigned long long> seen{f.object_address(g)};  // a group hard-linked twice (or into itself) is shown once
  std::function<void(const std::string&, int)> walk = [&](const std::string& p, int depth) {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    for (const std::string& a : f.attr_names(p)) {
      if (ResultsReader::is_config_attribute(a)) continue;
      std::string v;
      switch (f.attr_type(p, a)) {
        case Hdf5File::AttrType::string:
          v = f.attr_string(p, a);
          if (v.size() > 60 || v.find('\n') != std::string::npos) v = utf8_prefix(v.substr(0, v.find('\n')), 60) + " ...";
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
        const bool first_time = seen.insert(f.object_address(child)).second;
        out << pad << c << "/" << (first_time ? "" : "  (a link to a group shown above)") << "\n";
        if (first_time) walk(child, depth + 1);
      } else {
        out << pad << c << "  " << shape_text(f.shape(child)) << "\n";
      }
    }
  };
  out << g << "\n";
  if (const ParamsCheck c = file.check_params(run); c.edited()) out << "WARNING: " << c.warning(run) << "\n";
  walk(g, 1);
  out << "\nconfig:\n" << file.config(run) << "\n";
  return out.str();
}

}  // namespace attn
