#include "lab/results/results_format.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>

#include "attnlab/data/text.hpp"
#include "attnlab/suggest.hpp"
#include "lab/results/layout.hpp"
#include "lab/results/params_checksum.hpp"

namespace attn {
namespace {

using namespace layout;

const std::vector<std::string> fixed_history = {"epoch", "train_loss", "grad_norm", "clipped_fraction", "lr", "seconds"};
// A history column that holds a training statistic (EpochRecord::statistics), not a metric.
bool is_statistic(const std::string& column) {
  return column == "teacher_forcing" || column.rfind("grad_norm.", 0) == 0;
}

// "encoder.rnn.layer0.W_ih" -> "<run>/params/encoder/rnn/layer0/W_ih"
std::string param_of(const std::string& id, const std::string& dotted) {
  std::string p = dotted;
  std::replace(p.begin(), p.end(), '.', '/');
  return group_of(id) + "/params/" + p;
}

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string point_yaml(const SweepPoint& point) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& [k, v] : point) out << YAML::Key << k << YAML::Value << v;
  out << YAML::EndMap;
  return out.c_str();
}

SweepPoint read_point(const std::string& yaml) {
  SweepPoint point;
  const YAML::Node node = YAML::Load(yaml);
  for (auto it = node.begin(); it != node.end(); ++it)
    point.emplace_back(it->first.as<std::string>(), it->second.as<std::string>());
  return point;
}

// Bounds on the counts a results file holds, against a damaged or changed file making a reader
// allocate without end; above what attnlab writes (a spec plans at most 10000 runs, and did not
// always; at most 1e9 epochs; the built-in datasets have at most 10000 steps, a plugin's may have
// more, and 100000 steps of a sentence still decode in megabytes).
constexpr std::size_t most_runs = std::size_t{1} << 24, most_epochs = 1000000000, most_steps = 100000;

// Count attributes added over the format's life are absent from older files.
std::size_t count_attr_or(const Hdf5File& f, const std::string& object, const std::string& name, std::size_t most,
                          std::size_t fallback) {
  return f.has_attr(object, name) ? f.attr_count(object, name, 0, most) : fallback;
}

// What a history column holds: {units, description} (docs/hdf5-layout.md).
std::pair<std::string, std::string> history_column_meaning(const std::string& name) {
  static const std::map<std::string, std::pair<std::string, std::string>> fixed = {
      {"epoch", {"epoch", "1-based epoch number"}},
      {"train_loss", {"loss", "the epoch's training loss: mean over target tokens (sequence models); sum of squared errors "
                              "over the training points (Nadaraya-Watson, as d2l)"}},
      {"grad_norm", {"norm", "global gradient norm before clipping, mean over the epoch's steps"}},
      {"clipped_fraction", {"fraction", "of the epoch's steps, those whose gradients were clipped"}},
      {"lr", {"learning rate", "the learning rate of the epoch's last update"}},
      {"seconds", {"s", "wall time of the epoch (training, evaluation, attention measurement)"}},
      {"teacher_forcing", {"probability", "P(the decoder is fed the gold token) at the epoch's last update"}}};
  if (const auto it = fixed.find(name); it != fixed.end()) return it->second;
  if (name.rfind("grad_norm.", 0) == 0) return {"norm", "gradient norm of the parameters under " + name.substr(10) + ", mean over the steps"};
  if (is_attention_metric(name)) return {"see measuring-attention.md", "attention metric of the probe set, mean over layers and heads"};
  return {"metric", "evaluation metric; NaN in epochs not evaluated"};
}

// <base>/history/<column>, and beside it what else is kept per epoch (layout.hpp).
void write_history(Hdf5File& f, const std::string& base, const std::vector<EpochRecord>& history) {
  const std::string group = base + "/history";
  f.create_group(group);
  if (history.empty()) return;
  for (const auto& [name, column] : history_columns(history)) {
    f.write(group + "/" + name, column);
    const auto [units, description] = history_column_meaning(name);
    describe(f, group + "/" + name, "epoch", units, description);
  }
  write_attention_history(f, base, history);
  write_array_history(f, base, history);
}

std::vector<EpochRecord> read_history(const Hdf5File& f, const std::string& base) {
  const std::string group = base + "/history";
  std::vector<EpochRecord> history;
  if (!f.exists(group + "/epoch")) return history;
  const std::vector<double> epoch = f.read_doubles(group + "/epoch");
  history.resize(epoch.size());
  for (std::size_t i = 0; i < epoch.size(); ++i) history[i].epoch = static_cast<std::size_t>(epoch[i]);
  for (const std::string& column : f.children(group)) {
    if (f.is_group(group + "/" + column)) continue;  // (formats 4 to 6: attention metrics and snapshots)
    const std::vector<double> values = f.read_doubles(group + "/" + column);
    for (std::size_t i = 0; i < values.size() && i < history.size(); ++i) {
      EpochRecord& e = history[i];
      if (column == "train_loss") e.train_loss = values[i];
      else if (column == "grad_norm") e.grad_norm = values[i];
      else if (column == "clipped_fraction") e.clipped_fraction = values[i];
      else if (column == "lr") e.lr = values[i];
      else if (column == "seconds") e.seconds = values[i];
      else if (is_statistic(column)) e.statistics[column] = values[i];
      else if (column != "epoch" && !std::isnan(values[i])) e.metrics[column] = values[i];
    }
  }
  read_attention_history(f, base, history);
  read_array_history(f, base, history);
  return history;
}

// The machine writing the run (a sweep's parts may run on many: `attnlab merge` keeps each).
std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
}

void write_run_attributes(Hdf5File& f, const RunRecord& r) {
  const std::string g = group_of(r.id);
  f.set_attr(g, config_attribute, r.config);
  f.set_attr(g, "sweep_point", point_yaml(r.point));
  f.set_attr(g, overrides_attribute, point_yaml(r.overrides));
  f.set_attr(g, "seed", static_cast<long>(r.seed));
  f.set_attr(g, "index", static_cast<long>(r.index));
  f.set_attr(g, "status", std::string(to_string(r.status)));
  f.set_attr(g, "error", r.error);
  f.set_attr(g, "wall_seconds", r.wall_seconds);
  f.set_attr(g, "host", host_name());
  f.set_attr(g, "epochs_done", static_cast<long>(r.history.size()));
  f.set_attr(g, "resumed_from_epoch", static_cast<long>(r.resumed_from_epoch));
  f.set_attr(g, params_checksum_attribute, params_checksum(r.params));
  for (const auto& [name, value] : r.metrics) f.set_attr(g, metric_prefix + name, value);
}

void write_named(Hdf5File& f, const std::string& group, const NamedTensors& tensors) {
  for (const auto& [name, t] : tensors) f.write(group + "/" + name, t);
}

// Every dataset under `group`, named by its path below it ("m/encoder.W" for optimizer state).
// `seen` holds the groups read: a group hard-linked back into what is being read (a file edited
// by another program) would otherwise be read round and round.
void read_named(const Hdf5File& f, const std::string& group, const std::string& prefix, NamedTensors& out,
                std::set<unsigned long long>& seen) {
  if (!seen.insert(f.object_address(group)).second)
    throw FileError(f.path() + ": " + group + " is a second link to a group already read (a file edited by another program)");
  for (const std::string& child : f.children(group)) {
    const std::string path = group + "/" + child;
    if (f.is_group(path)) read_named(f, path, prefix + child + "/", out, seen);
    else out.emplace_back(prefix + child, f.read(path));
  }
}

NamedTensors read_named(const Hdf5File& f, const std::string& group) {
  NamedTensors out;
  std::set<unsigned long long> seen;
  if (f.exists(group)) read_named(f, group, "", out, seen);
  return out;
}

}  // namespace

HistoryColumns history_columns(const std::vector<EpochRecord>& history) {
  HistoryColumns columns;
  for (const std::string& name : fixed_history) columns.emplace_back(name, std::vector<double>{});
  std::map<std::string, std::vector<double>> statistics, metrics;  // NaN where an epoch lacks one
  for (const EpochRecord& e : history) {
    for (const auto& kv : e.statistics) statistics[kv.first];
    for (const auto& kv : e.metrics) metrics[kv.first];
  }
  const auto fill = [](std::map<std::string, std::vector<double>>& out, const std::map<std::string, double>& values) {
    for (auto& [k, column] : out) column.push_back(values.count(k) ? values.at(k) : std::nan(""));
  };
  for (const EpochRecord& e : history) {
    const double fixed[] = {static_cast<double>(e.epoch), e.train_loss, e.grad_norm, e.clipped_fraction, e.lr, e.seconds};
    for (std::size_t c = 0; c < fixed_history.size(); ++c) columns[c].second.push_back(fixed[c]);
    fill(statistics, e.statistics);
    fill(metrics, e.metrics);
  }
  for (auto& kv : statistics) columns.emplace_back(kv.first, std::move(kv.second));
  for (auto& kv : metrics) columns.emplace_back(kv.first, std::move(kv.second));
  return columns;
}

namespace {

void write_header(const std::string& path, const ResultsHeader& h) {
  Hdf5File f(path, Hdf5File::Mode::create_truncate);
  f.set_attr("/", "format", std::string(results_format_name));
  f.set_attr("/", "format_version", results_format_version);
  f.set_attr("/", "attnlab_version", std::string(attnlab_version));
  f.set_attr("/", "spec", h.spec);
  f.set_attr("/", "spec_path", h.spec_path);
  f.set_attr("/", "name", h.name);
  f.set_attr("/", "created", now_iso());
  f.set_attr("/", "planned_runs", static_cast<long>(h.planned_runs));
  std::string order;
  for (const std::string& id : h.run_order) order += (order.empty() ? "" : "\n") + id;
  f.set_attr("/", "run_order", order);
  if (!h.shard.empty()) f.set_attr("/", "shard", h.shard);
  f.create_group(runs_group);
}

}  // namespace

// Written under a temporary name and renamed when whole: a file system without room for it
// leaves no partial file, and the file a --force run replaces stays as it was.
void create_results_file(const std::string& path, const ResultsHeader& h) {
  const std::string partial = path + ".creating-" + std::to_string(getpid());
  try {
    write_header(partial, h);
  } catch (...) {
    std::remove(partial.c_str());
    throw;
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(partial.c_str());
    throw FileError(path + ": cannot create the results file: " + std::strerror(error));
  }
}


double record_bytes(const RunRecord& r) {
  constexpr double per_object = 1024;  // an HDF5 object's header and attributes, generously
  const double columns = 8.0 + static_cast<double>(r.history.empty() ? 0 : r.history.back().metrics.size() + r.history.back().statistics.size());
  double bytes = 64 * per_object + sizeof(double) * columns * static_cast<double>(r.history.size());
  const auto add = [&](const Tensor& t) { bytes += sizeof(float) * static_cast<double>(t.size()) + per_object; };
  const auto add_examples = [&](const std::vector<ExampleAttention>& examples) {
    for (const ExampleAttention& ex : examples)
      for (const AttentionMap& m : ex.maps) add(m.weights), bytes += 16.0 * static_cast<double>(m.queries.size() + m.keys.size());
  };
  for (const auto& [name, value] : r.params) add(value);
  for (const auto& [name, value] : r.plot_data) add(value);
  add_examples(r.attention);
  for (const EpochRecord& e : r.history) add_examples(e.snapshot);
  for (const std::string& token : r.src_vocab) bytes += static_cast<double>(token.size()) + 16;
  for (const std::string& token : r.tgt_vocab) bytes += static_cast<double>(token.size()) + 16;
  return bytes;
}

void update_atomically(const std::string& path, const std::function<void(Hdf5File&)>& change) {
  namespace fs = std::filesystem;
  const std::string copy = path + ".writing-" + std::to_string(getpid());
  if (access(path.c_str(), W_OK) != 0 && errno == EACCES)  // (the copy would be read-only too, and named in HDF5's words)
    throw FileError(path + ": the file is read-only, and this command writes into it: make it writable (chmod u+w) "
                           "or give a writable copy");
  try {
    fs::copy_file(path, copy, fs::copy_options::overwrite_existing);
    {
      Hdf5File f(copy, Hdf5File::Mode::read_write);
      change(f);
    }  // closed (flushed) before it replaces the file
    if (std::rename(copy.c_str(), path.c_str()) != 0)
      throw FileError(path + ": cannot replace it with its updated copy (" + std::strerror(errno) + "): the file or its directory is "
                      "protected (an immutable or append-only file, a sticky directory of another user); give a copy in a directory you own");
  } catch (const fs::filesystem_error& e) {
    std::remove(copy.c_str());
    throw FileError(path + ": cannot write: " + (e.code() == std::errc::no_space_on_device ? "no space left on the device" : e.code().message()));
  } catch (const FileError& e) {  // said of the file the user named, not of its temporary copy
    std::remove(copy.c_str());
    std::string message = e.what();
    for (std::size_t at = 0; (at = message.find(copy, at)) != std::string::npos; at += path.size()) message.replace(at, copy.size(), path);
    throw FileError(message);
  } catch (...) {
    std::remove(copy.c_str());
    throw;
  }
}

namespace {

// Whether `name` is `mine` followed by temporary suffixes (.writing-<pid>, .creating-<pid>,
// .merging-<pid>), one or more: a merge's partial file has temporary copies of its own.
bool temporary_copy_of(const std::string& name, const std::string& mine) {
  if (name.size() == mine.size() || name.rfind(mine, 0) != 0) return false;
  for (std::size_t at = mine.size(); at < name.size();) {
    const char* const suffixes[] = {".writing-", ".creating-", ".merging-"};
    const auto suffix = std::find_if(std::begin(suffixes), std::end(suffixes),
                                     [&](const char* what) { return name.compare(at, std::strlen(what), what) == 0; });
    if (suffix == std::end(suffixes)) return false;
    const std::size_t digits = at + std::strlen(*suffix), end = std::min(name.find_first_not_of("0123456789", digits), name.size());
    if (end == digits) return false;
    at = end;
  }
  return true;
}

}  // namespace

void remove_leftovers(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file(path), dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  std::vector<fs::path> leftovers;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (temporary_copy_of(entry.path().filename().string(), file.filename().string())) leftovers.push_back(entry.path());
  for (const fs::path& leftover : leftovers) fs::remove(leftover, ec);
}

namespace {

// lengths/length and one column per metric, float64 [length] (NaN where a length lacks it).
void write_length_metrics(Hdf5File& f, const std::string& group, const LengthMetrics& lengths) {
  if (lengths.empty()) return;
  f.create_group(group);
  std::vector<double> length;
  std::map<std::string, std::vector<double>> columns;
  for (const auto& [l, metrics] : lengths)
    for (const auto& kv : metrics) columns[kv.first];
  for (const auto& [l, metrics] : lengths) {
    length.push_back(static_cast<double>(l));
    for (auto& [name, column] : columns) column.push_back(metrics.count(name) ? metrics.at(name) : std::nan(""));
  }
  f.write(group + "/length", length);
  describe(f, group + "/length", "length", "positions", "the input length each column's entry was evaluated at (evaluation.lengths)");
  for (const auto& [name, column] : columns) {
    f.write(group + "/" + name, column);
    describe(f, group + "/" + name, "length", "metric", "the final model's " + name + " at each length");
  }
}

void write_run_into(Hdf5File& f, const RunRecord& r) {
  const std::string g = group_of(r.id);
  f.remove(g);
  f.create_group(g);
  write_run_attributes(f, r);
  for (const auto& [name, value] : r.params) {
    f.write(param_of(r.id, name), value);
    describe(f, param_of(r.id, name), "the parameter's own axes", "", "parameter " + name + " of the trained model");
  }
  write_history(f, group_of(r.id), r.history);
  f.create_group(attention_of(r.id));
  for (const ExampleAttention& ex : r.attention) write_example(f, attention_of(r.id) + "/" + example_name(ex.example), ex);
  write_attention_metrics(f, attention_metrics_of(r.id), r.attention_metrics);
  write_named(f, data_of(r.id), r.plot_data);
  if (!r.src_vocab.empty()) {
    f.write(vocab_of(r.id) + "/source", r.src_vocab);
    f.write(vocab_of(r.id) + "/target", r.tgt_vocab);
    f.set_attr(vocab_of(r.id), "num_steps", static_cast<long>(r.num_steps));
  }
  write_length_metrics(f, lengths_of(r.id), r.length_metrics);
}

void write_summary_into(Hdf5File& f, const Summary& s) {
  f.remove(summary_group);
  f.create_group(summary_group);
  std::vector<std::string> points;
  std::vector<double> runs, ok, wall;
  for (const SummaryRow& r : s.rows) {
    points.push_back(r.point);
    runs.push_back(static_cast<double>(r.runs));
    ok.push_back(static_cast<double>(r.ok));
    wall.push_back(r.wall_mean);
  }
  f.write(summary_group + "/sweep_point", points);
  f.write(summary_group + "/runs", runs);
  f.write(summary_group + "/runs_ok", ok);
  f.write(summary_group + "/wall_seconds_mean", wall);
  for (const std::string& m : s.metrics) {
    std::vector<double> mean, std;
    for (const SummaryRow& r : s.rows) {
      const auto it = r.metrics.find(m);
      mean.push_back(it == r.metrics.end() ? std::nan("") : it->second.first);
      std.push_back(it == r.metrics.end() ? std::nan("") : it->second.second);
    }
    f.write(summary_group + "/" + m + "_mean", mean);
    f.write(summary_group + "/" + m + "_std", std);
  }
  f.set_attr(summary_group, "table", format_summary(s, TableFormat::text, main_table_metrics(s)));
}

}  // namespace

void write_run(const std::string& path, const RunRecord& r) {
  update_atomically(path, [&](Hdf5File& f) { write_run_into(f, r); });
}

void write_summary(const std::string& path, const Summary& s) {
  update_atomically(path, [&](Hdf5File& f) { write_summary_into(f, s); });
}

std::vector<std::string> add_probes(const std::string& path, const std::string& id, const std::vector<ExampleAttention>& probes) {
  std::size_t next = ResultsReader(path).probes(id).size();
  std::vector<std::string> names;
  update_atomically(path, [&](Hdf5File& f) {
    for (const ExampleAttention& ex : probes) {
      names.push_back(ResultsReader::probe_name(next++));
      write_example(f, probes_of(id) + "/" + names.back(), ex);
    }
  });
  return names;
}

void write_head_analysis(const std::string& path, const std::string& id, const HeadAnalysis& analysis) {
  ResultsReader(path).run(id);  // an unknown run is a UsageError before the file is touched
  update_atomically(path, [&](Hdf5File& f) { layout::write_head_analysis(f, heads_of(id), analysis); });
}

// ---- reading ----

ResultsReader::ResultsReader(const std::string& path) : file_(path, Hdf5File::Mode::read) {
  if (!file_.has_attr("/", "format") || file_.attr_type("/", "format") != Hdf5File::AttrType::string ||
      file_.attr_string("/", "format") != results_format_name || !file_.exists(runs_group))
    throw FileError(path + ": an HDF5 file, but not an attnlab results file (no format attribute '" +
                    std::string(results_format_name) + "')");
  version_ = file_.has_attr("/", "format_version") ? file_.attr_long("/", "format_version") : 1;
  if (version_ < 1 || version_ > results_format_version)
    throw FileError(path + ": results format " + std::to_string(version_) + ", but this attnlab (" +
                    attnlab_version + ") reads formats 1 to " + std::to_string(results_format_version) +
                    "; read it with a newer attnlab");
}

// run_order as attnlab writes it: planned_runs ids, each once (`merge` finds missing runs by it,
// `inspect` counts "N of M planned" by planned_runs). Runs of the file outside it are not refused:
// `run --resume` with other --set sweep values added such runs before it was refused.
void ResultsReader::check_run_order(const ResultsHeader& h) const {
  const auto damaged = [&](const std::string& what) {
    throw FileError(path() + ": attribute run_order of / " + what + " (the file is damaged)");
  };
  if (h.run_order.size() != h.planned_runs)
    damaged("lists " + std::to_string(h.run_order.size()) + " runs, but planned_runs is " + std::to_string(h.planned_runs));
  std::set<std::string> listed;
  for (const std::string& id : h.run_order)
    if (id.empty() || !listed.insert(id).second)
      damaged(id.empty() ? "holds an empty run id" : "lists the run '" + utf8_shortened(id, 200) + "' twice");
}

ResultsHeader ResultsReader::header() const {
  ResultsHeader h;
  h.spec = file_.attr_string("/", "spec");
  h.spec_path = file_.attr_string("/", "spec_path");
  h.name = file_.attr_string("/", "name");
  h.created = file_.attr_string("/", "created");
  h.attnlab_version = file_.attr_string("/", "attnlab_version");
  h.planned_runs = file_.attr_count("/", "planned_runs", 0, most_runs);
  if (file_.has_attr("/", "run_order")) {
    std::istringstream lines(file_.attr_string("/", "run_order"));
    for (std::string id; std::getline(lines, id);) h.run_order.push_back(id);
    check_run_order(h);
  }
  if (file_.has_attr("/", "shard")) h.shard = file_.attr_string("/", "shard");
  h.format_version = version_;
  return h;
}

std::vector<std::string> ResultsReader::run_ids() const { return file_.children(runs_group); }

const std::string& ResultsReader::known(const std::string& id) const {
  const std::vector<std::string> ids = run_ids();  // a name, not a path: "" or "x/params" is no run
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) throw UsageError(unknown_name_message("run", id, ids));
  return id;
}

std::string ResultsReader::run_group(const std::string& id) const { return group_of(known(id)); }

RunInfo ResultsReader::run(const std::string& id) const {
  const std::string g = run_group(id);
  RunInfo r;
  r.id = id;
  const std::string status = file_.attr_string(g, "status");
  const auto parsed = parse_run_status(status);
  if (!parsed) throw FileError(path() + ": run '" + id + "' has the unknown status '" + status + "'");
  r.status = *parsed;
  r.error = file_.has_attr(g, "error") ? file_.attr_string(g, "error") : "";
  r.wall_seconds = file_.attr_double(g, "wall_seconds");
  r.point = read_point(file_.attr_string(g, "sweep_point"));
  if (file_.has_attr(g, overrides_attribute)) r.overrides = read_point(file_.attr_string(g, overrides_attribute));
  r.seed = static_cast<std::uint64_t>(file_.attr_long(g, "seed"));
  r.index = count_attr_or(file_, g, "index", most_runs, 0);
  r.epochs_done = count_attr_or(file_, g, "epochs_done", most_epochs, 0);
  r.resumed_from_epoch = count_attr_or(file_, g, "resumed_from_epoch", most_epochs, 0);
  for (const std::string& a : file_.attr_names(g))
    if (a.rfind(metric_prefix, 0) == 0) r.metrics[a.substr(metric_prefix.size())] = file_.attr_double(g, a);
  for (const auto& [length, metrics] : length_metrics(id))
    for (const auto& [name, value] : metrics) r.metrics[length_metric_name(name, length)] = value;
  return r;
}

std::vector<RunInfo> ResultsReader::runs() const {
  std::vector<RunInfo> out;
  for (const std::string& id : run_ids()) out.push_back(run(id));
  std::stable_sort(out.begin(), out.end(), [](const RunInfo& a, const RunInfo& b) { return a.index < b.index; });
  return out;
}

std::optional<HeadAnalysis> ResultsReader::head_analysis(const std::string& id) const {
  return layout::read_head_analysis(file_, heads_of(known(id)));
}

LengthMetrics ResultsReader::length_metrics(const std::string& id) const {
  const std::string g = lengths_of(known(id));
  LengthMetrics out;
  if (!file_.exists(g + "/length")) return out;
  for (const double l : file_.read_doubles(g + "/length")) out.emplace_back(static_cast<std::size_t>(l), Metrics{});
  for (const std::string& column : file_.children(g)) {
    if (column == "length") continue;
    const std::vector<double> values = file_.read_doubles(g + "/" + column);
    for (std::size_t i = 0; i < values.size() && i < out.size(); ++i)
      if (!std::isnan(values[i])) out[i].second[column] = values[i];
  }
  return out;
}

std::string ResultsReader::config(const std::string& id) const { return file_.attr_string(run_group(id), config_attribute); }

std::string ResultsReader::example_name(std::size_t index) { return layout::example_name(index); }

std::string ResultsReader::probe_name(std::size_t n) { return probe_prefix + std::to_string(n); }

bool ResultsReader::is_config_attribute(const std::string& name) { return name == config_attribute; }

Tensor ResultsReader::param(const std::string& id, const std::string& dotted_name) const {
  return file_.read(param_of(known(id), dotted_name));
}

std::string ParamsCheck::warning(const std::string& id) const {
  return "run '" + id + "': its parameters were changed after training (checksum " + stored + " when written, " + now +
         " now), so its stored metrics, history and attention maps were not measured with these parameters";
}

ParamsCheck ResultsReader::check_params(const std::string& id, const NamedTensors* loaded) const {
  const std::string g = group_of(known(id));
  ParamsCheck c;
  if (!file_.has_attr(g, params_checksum_attribute)) return c;
  c.stored = file_.attr_string(g, params_checksum_attribute);
  if (loaded) {
    c.now = params_checksum(*loaded);
    return c;
  }
  NamedTensors params = read_named(file_, g + "/params");
  for (auto& [name, value] : params) std::replace(name.begin(), name.end(), '/', '.');
  c.now = params_checksum(params);
  return c;
}

HistoryColumns ResultsReader::history(const std::string& id) const {
  HistoryColumns out;  // the columns the file has, by name (format 1 has no grad_norm)
  const std::string g = history_of(known(id));
  if (!file_.exists(g + "/epoch")) return out;
  for (const std::string& column : file_.children(g))
    if (!file_.is_group(g + "/" + column)) out.emplace_back(column, file_.read_doubles(g + "/" + column));
  return out;
}

std::vector<std::string> ResultsReader::examples(const std::string& id) const {
  const std::string g = attention_of(known(id));
  return file_.exists(g) ? file_.children(g) : std::vector<std::string>{};
}

std::vector<std::string> ResultsReader::map_names(const std::string& id, const std::string& example) const {
  const std::string eg = attention_of(known(id)) + "/" + example;
  if (!file_.exists(eg)) throw UsageError(unknown_name_message("recorded example", example, examples(id)));
  return file_.children(eg);
}

Shape ResultsReader::map_shape(const std::string& id, const std::string& example, const std::string& map) const {
  return file_.shape(attention_of(id) + "/" + example + "/" + map + "/weights");
}

ExampleAttention ResultsReader::example(const std::string& id, const std::string& example) const {
  if (example.rfind(probe_prefix, 0) == 0) {
    const std::vector<std::string> typed = probes(id);
    if (std::find(typed.begin(), typed.end(), example) == typed.end()) throw UsageError(unknown_name_message("probe", example, typed));
    return read_example(file_, probes_of(id) + "/" + example);
  }
  map_names(id, example);  // an unknown example is a UsageError naming the recorded ones
  return read_example(file_, attention_of(id) + "/" + example);
}

std::vector<std::string> ResultsReader::probes(const std::string& id) const {
  const std::string g = probes_of(known(id));
  std::vector<std::string> names = file_.exists(g) ? file_.children(g) : std::vector<std::string>{};
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {  // probe_2 before probe_10
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return names;
}

std::vector<MapMetrics> ResultsReader::attention_metrics(const std::string& id) const {
  return read_attention_metrics(file_, attention_metrics_of(known(id)));
}

std::vector<MapMetrics> ResultsReader::attention_metrics(const std::string& id, std::size_t epoch) const {
  const std::vector<EpochRecord> history = read_history(file_, group_of(known(id)));
  for (const EpochRecord& e : history)
    if (e.epoch == epoch) return e.attention;
  return {};
}

std::vector<std::size_t> ResultsReader::snapshot_epochs(const std::string& id) const {
  const std::string g = present(file_, snapshots_in(group_of(known(id))), group_of(id), "snapshots");
  std::vector<std::size_t> epochs;
  if (file_.exists(g))
    for (const std::string& name : file_.children(g)) {
      const std::string digits = name.rfind("epoch_", 0) == 0 ? name.substr(6) : "";
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
        throw FileError(file_.path() + ": " + g + "/" + name + " is not a snapshot group epoch_N (a damaged or foreign file)");
      epochs.push_back(std::stoul(digits));
    }
  std::sort(epochs.begin(), epochs.end());
  return epochs;
}

ExampleAttention ResultsReader::snapshot(const std::string& id, std::size_t epoch, const std::string& example) const {
  const std::string g = present(file_, snapshots_in(group_of(known(id))), group_of(id), "snapshots") + "/" + epoch_name(epoch) + "/" + example;
  if (!file_.exists(g)) throw UsageError("run '" + id + "' has no snapshot of " + example + " at epoch " + std::to_string(epoch));
  return read_example(file_, g);
}

std::optional<Tensor> ResultsReader::plot_data(const std::string& id, const std::string& name) const {
  const std::string p = data_of(known(id)) + "/" + name;
  if (!file_.exists(p)) return std::nullopt;
  return file_.read(p);
}

std::optional<Vocabularies> ResultsReader::vocabularies(const std::string& id) const {
  const std::string g = vocab_of(known(id));
  if (!file_.exists(g + "/source")) return std::nullopt;
  return Vocabularies{file_.read_strings(g + "/source"), file_.read_strings(g + "/target"),
                      file_.attr_count(g, "num_steps", 1, most_steps)};
}

std::optional<std::string> ResultsReader::summary_table() const {
  if (!file_.exists(summary_group) || !file_.has_attr(summary_group, "table")) return std::nullopt;
  return file_.attr_string(summary_group, "table");
}

// ---- checkpoints ----
// Layout under /trainer: params/<name>, optimizer/<state name>, best/<name> (early stopping),
// history/<column>, and attributes rng_state, epochs_done, best, has_best, bad_evaluations;
// the root's attribute config.

void write_trainer_state(const std::string& path, const TrainerState& s, const std::string& config) {
  Hdf5File f(path, Hdf5File::Mode::create_truncate);
  f.create_group(trainer_group);
  write_named(f, trainer_group + "/params", s.params);
  write_named(f, trainer_group + "/optimizer", s.optimizer);
  write_named(f, trainer_group + "/best", s.best_params);
  write_history(f, trainer_group, s.history);
  f.set_attr(trainer_group, "rng_state", s.rng_state);
  f.set_attr(trainer_group, "epochs_done", static_cast<long>(s.history.size()));
  f.set_attr(trainer_group, "best", s.best);
  f.set_attr(trainer_group, "has_best", static_cast<long>(s.has_best));
  f.set_attr(trainer_group, "bad_evaluations", static_cast<long>(s.bad_evaluations));
  f.set_attr("/", config_attribute, config);
}

std::string checkpoint_config(const std::string& path) {
  return Hdf5File(path, Hdf5File::Mode::read).attr_string("/", config_attribute);
}

TrainerState read_trainer_state(const std::string& path) {
  const Hdf5File f(path, Hdf5File::Mode::read);
  TrainerState s;
  s.params = read_named(f, trainer_group + "/params");
  s.optimizer = read_named(f, trainer_group + "/optimizer");
  s.best_params = read_named(f, trainer_group + "/best");
  s.history = read_history(f, trainer_group);
  s.rng_state = f.attr_string(trainer_group, "rng_state");
  s.best = f.attr_double(trainer_group, "best");
  s.has_best = f.attr_long(trainer_group, "has_best") != 0;
  s.bad_evaluations = f.attr_count(trainer_group, "bad_evaluations", 0, most_epochs);
  return s;
}

}  // namespace attn
