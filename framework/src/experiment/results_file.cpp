#include "attnlab/experiment/results_file.hpp"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <ctime>

#include "attnlab/io/hdf5_file.hpp"

namespace attn {
namespace {

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string point_yaml(const std::vector<std::pair<std::string, std::string>>& point) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& [k, v] : point) out << YAML::Key << k << YAML::Value << v;
  out << YAML::EndMap;
  return out.c_str();
}

Tensor positions(const std::vector<float>& v) {
  Tensor t = Tensor::from_shape({v.size()});
  std::copy(v.begin(), v.end(), t.begin());
  return t;
}

}  // namespace

std::string param_path(const std::string& dotted) {
  std::string p = dotted;
  for (char& c : p)
    if (c == '.') c = '/';
  return p;
}

void ResultsFile::create(const std::string& path, const Spec& spec) {
  Hdf5File f(path, Hdf5File::Mode::create_truncate);
  f.set_attr("/", "format", std::string(results_format));
  f.set_attr("/", "attnlab_version", std::string(attnlab_version));
  f.set_attr("/", "spec", spec.text);
  f.set_attr("/", "spec_path", spec.path);
  f.set_attr("/", "name", spec.name);
  f.set_attr("/", "created", now_iso());
  f.set_attr("/", "planned_runs", static_cast<long>(spec.runs.size()));
  f.create_group("/runs");
}

void ResultsFile::write_run(const std::string& path, const RunPlan& plan, const RunResult& r) {
  Hdf5File f(path, Hdf5File::Mode::read_write);
  const std::string g = "/runs/" + plan.id;
  f.remove(g);
  f.create_group(g);
  f.set_attr(g, "config", plan.config_yaml());
  f.set_attr(g, "sweep_point", point_yaml(plan.sweep_point));
  f.set_attr(g, "seed", static_cast<long>(plan.seed));
  f.set_attr(g, "index", static_cast<long>(plan.index));
  f.set_attr(g, "status", r.status);
  f.set_attr(g, "error", r.error);
  f.set_attr(g, "wall_seconds", r.wall_seconds);
  f.set_attr(g, "epochs_done", static_cast<long>(r.history.size()));
  f.set_attr(g, "resumed_from_epoch", static_cast<long>(r.resumed_from_epoch));
  for (const auto& [name, value] : r.metrics) f.set_attr(g, "metric." + name, value);
  for (const auto& [name, value] : r.params) f.write(g + "/params/" + param_path(name), value);
  f.create_group(g + "/history");
  if (!r.history.empty()) {
    std::vector<double> epoch, loss, seconds;
    std::map<std::string, std::vector<double>> metrics;
    for (const auto& e : r.history)
      for (const auto& kv : e.metrics) metrics[kv.first];
    for (const auto& e : r.history) {
      epoch.push_back(static_cast<double>(e.epoch));
      loss.push_back(e.train_loss);
      seconds.push_back(e.seconds);
      for (auto& [k, column] : metrics) column.push_back(e.metrics.count(k) ? e.metrics.at(k) : std::nan(""));
    }
    f.write(g + "/history/epoch", epoch);
    f.write(g + "/history/train_loss", loss);
    f.write(g + "/history/seconds", seconds);
    for (const auto& [k, column] : metrics) f.write(g + "/history/" + k, column);
  }
  f.create_group(g + "/attention");
  for (const ExampleAttention& ex : r.attention) {
    const std::string eg = g + "/attention/example_" + std::to_string(ex.example);
    f.create_group(eg);
    f.set_attr(eg, "example", static_cast<long>(ex.example));
    f.set_attr(eg, "source", ex.source);
    f.set_attr(eg, "target", ex.target);
    f.set_attr(eg, "prediction", ex.prediction);
    for (const AttentionMap& m : ex.maps) {
      const std::string mg = eg + "/" + m.name;
      f.write(mg + "/weights", m.weights);
      f.write(mg + "/queries", m.queries);
      f.write(mg + "/keys", m.keys);
      if (!m.query_positions.empty()) f.write(mg + "/query_positions", positions(m.query_positions));
      if (!m.key_positions.empty()) f.write(mg + "/key_positions", positions(m.key_positions));
    }
  }
  for (const auto& [name, t] : r.plot_data) f.write(g + "/data/" + name, t);
  if (!r.src_vocab.empty()) {
    f.write(g + "/vocab/source", r.src_vocab);
    f.write(g + "/vocab/target", r.tgt_vocab);
    f.set_attr(g + "/vocab", "num_steps", static_cast<long>(r.num_steps));
  }
}

void ResultsFile::write_summary(const std::string& path, const Summary& s) {
  Hdf5File f(path, Hdf5File::Mode::read_write);
  f.remove("/summary");
  f.create_group("/summary");
  std::vector<std::string> points;
  std::vector<double> runs, ok, wall;
  for (const SummaryRow& r : s.rows) {
    points.push_back(r.point);
    runs.push_back(static_cast<double>(r.runs));
    ok.push_back(static_cast<double>(r.ok));
    wall.push_back(r.wall_mean);
  }
  f.write("/summary/sweep_point", points);
  f.write("/summary/runs", runs);
  f.write("/summary/runs_ok", ok);
  f.write("/summary/wall_seconds_mean", wall);
  for (const std::string& m : s.metrics) {
    std::vector<double> mean, std;
    for (const SummaryRow& r : s.rows) {
      const auto it = r.metrics.find(m);
      mean.push_back(it == r.metrics.end() ? std::nan("") : it->second.first);
      std.push_back(it == r.metrics.end() ? std::nan("") : it->second.second);
    }
    f.write("/summary/" + m + "_mean", mean);
    f.write("/summary/" + m + "_std", std);
  }
  f.set_attr("/summary", "table", format_summary(s, TableFormat::text));
}

void ResultsFile::check(const std::string& path) {
  const Hdf5File f(path, Hdf5File::Mode::read);
  if (!f.has_attr("/", "format") || f.attr_string("/", "format") != results_format || !f.exists("/runs"))
    throw Hdf5Error(path + ": an HDF5 file, but not an attnlab results file (no format attribute '" +
                    std::string(results_format) + "')");
}

std::string ResultsFile::spec_text(const std::string& path) {
  check(path);
  return Hdf5File(path, Hdf5File::Mode::read).attr_string("/", "spec");
}

std::vector<std::string> ResultsFile::run_ids(const std::string& path) {
  check(path);
  return Hdf5File(path, Hdf5File::Mode::read).children("/runs");
}

std::vector<RunSummaryInput> ResultsFile::runs(const std::string& path) {
  check(path);
  const Hdf5File f(path, Hdf5File::Mode::read);
  std::vector<RunSummaryInput> out;
  std::vector<long> order;
  for (const std::string& id : f.children("/runs")) {
    const std::string g = "/runs/" + id;
    RunSummaryInput r;
    r.id = id;
    r.status = f.attr_string(g, "status");
    r.wall_seconds = f.attr_double(g, "wall_seconds");
    const YAML::Node point = YAML::Load(f.attr_string(g, "sweep_point"));
    for (auto it = point.begin(); it != point.end(); ++it)
      r.point.emplace_back(it->first.as<std::string>(), it->second.as<std::string>());
    for (const std::string& a : f.attr_names(g))
      if (a.rfind("metric.", 0) == 0) r.metrics[a.substr(7)] = f.attr_double(g, a);
    out.push_back(std::move(r));
    order.push_back(f.has_attr(g, "index") ? f.attr_long(g, "index") : 0);
  }
  std::vector<std::size_t> idx(out.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
  std::vector<RunSummaryInput> sorted;
  for (std::size_t i : idx) sorted.push_back(std::move(out[i]));
  return sorted;
}

}  // namespace attn
