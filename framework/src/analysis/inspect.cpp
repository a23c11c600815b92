#include "attnlab/analysis/inspect.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "attnlab/experiment/results_file.hpp"
#include "attnlab/io/hdf5_file.hpp"
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

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::abs(v) >= 1000 || (v != 0 && std::abs(v) < 1e-3) ? "%.3g" : "%.4f", v);
  return buf;
}

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace

std::string inspect_results(const std::string& path) {
  ResultsFile::check(path);
  const Hdf5File f(path, Hdf5File::Mode::read);
  std::ostringstream out;
  const std::vector<std::string> ids = f.children("/runs");
  out << path << ": attnlab results (attnlab " << f.attr_string("/", "attnlab_version") << "), spec '"
      << f.attr_string("/", "name") << "' from " << f.attr_string("/", "spec_path") << ", created "
      << f.attr_string("/", "created") << "\n"
      << ids.size() << " of " << f.attr_long("/", "planned_runs") << " planned runs written\n\n";

  // Runs with their status and metrics.
  std::set<std::string> metric_names;
  for (const std::string& id : ids)
    for (const std::string& a : f.attr_names("/runs/" + id))
      if (a.rfind("metric.", 0) == 0) metric_names.insert(a.substr(7));
  std::vector<std::vector<std::string>> table = {{"run", "status", "epochs", "wall s"}};
  for (const std::string& m : metric_names) table[0].push_back(m);
  std::map<std::string, std::map<std::string, std::string>> configs;
  for (const std::string& id : ids) {
    const std::string g = "/runs/" + id;
    std::vector<std::string> row = {id, f.attr_string(g, "status"), std::to_string(f.attr_long(g, "epochs_done")),
                                    fixed(f.attr_double(g, "wall_seconds"))};
    for (const std::string& m : metric_names)
      row.push_back(f.has_attr(g, "metric." + m) ? fixed(f.attr_double(g, "metric." + m)) : "-");
    table.push_back(row);
    flatten(YAML::Load(f.attr_string(g, "config")), "", configs[id]);
  }
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : table) {
    for (std::size_t i = 0; i < row.size(); ++i) out << row[i] << std::string(width[i] - row[i].size() + 2, ' ');
    out << "\n";
  }
  for (const std::string& id : ids) {
    const std::string error = f.attr_string("/runs/" + id, "error");
    if (!error.empty()) out << "  " << id << " failed: " << error << "\n";
  }

  // Keys whose values differ between runs.
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

  // Attention maps stored.
  out << "\nattention maps stored:\n";
  for (const std::string& id : ids) {
    const std::string ag = "/runs/" + id + "/attention";
    std::string line;
    for (const std::string& ex : f.exists(ag) ? f.children(ag) : std::vector<std::string>{})
      for (const std::string& m : f.children(ag + "/" + ex))
        line += (line.empty() ? "" : "; ") + ex + "/" + m + " " + shape_text(f.shape(ag + "/" + ex + "/" + m + "/weights"));
    out << "  " << id << ": " << (line.empty() ? "none" : line) << "\n";
  }
  out << "\n[layer, head, n_q, n_k]; draw them with: attnlab plot " << path << " --run RUN --attention\n";
  return out.str();
}

std::string inspect_run(const std::string& path, const std::string& run) {
  ResultsFile::check(path);
  const Hdf5File f(path, Hdf5File::Mode::read);
  const std::string g = "/runs/" + run;
  if (!f.exists(g)) throw std::invalid_argument(unknown_name_message("run", run, f.children("/runs")));
  std::ostringstream out;
  std::function<void(const std::string&, int)> walk = [&](const std::string& p, int depth) {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    for (const std::string& a : f.attr_names(p)) {
      if (a == "config") continue;
      std::string v;
      switch (f.attr_type(p, a)) {
        case Hdf5File::AttrType::string:
          v = f.attr_string(p, a);
          if (v.size() > 60 || v.find('\n') != std::string::npos) v = v.substr(0, std::min(v.find('\n'), std::size_t{60})) + " ...";
          break;
        case Hdf5File::AttrType::integer: v = std::to_string(f.attr_long(p, a)); break;
        case Hdf5File::AttrType::real: v = fixed(f.attr_double(p, a)); break;
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
  out << "\nconfig:\n" << f.attr_string(g, "config") << "\n";
  return out.str();
}

}  // namespace attn
