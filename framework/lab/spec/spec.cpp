#include "lab/spec/spec.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "attnlab/suggest.hpp"

namespace attn {
namespace {

enum class Type { string, integer, real, boolean, string_list, int_list };

struct KeyRule {
  Type type;
  double min = -1e300, max = 1e300;
  bool min_exclusive = false;
};

// The fixed keys (see spec_schema.cpp for their documentation).
const std::map<std::string, KeyRule>& rules() {
  static const std::map<std::string, KeyRule> r = {
      {"name", {Type::string}},
      {"description", {Type::string}},
      {"seed", {Type::integer, 0, 1e18}},
      {"output", {Type::string}},
      {"plugins", {Type::string_list}},
      {"dataset.name", {Type::string}},
      {"model.name", {Type::string}},
      {"training.optimizer", {Type::string}},
      {"training.lr", {Type::real, 0, 1e30, true}},
      {"training.epochs", {Type::integer, 0, 1e9}},
      {"training.batch_size", {Type::integer, 1, 1e9}},
      {"training.clip", {Type::real, 0, 1e30}},
      {"training.shuffle", {Type::boolean}},
      {"training.eval_every", {Type::integer, 1, 1e9}},
      {"training.early_stopping.metric", {Type::string}},
      {"training.early_stopping.patience", {Type::integer, 1, 1e9}},
      {"evaluation.beam", {Type::integer, 1, 1e4}},
      {"evaluation.alpha", {Type::real, 0, 100}},
      {"evaluation.max_len", {Type::integer, 1, 1e6}},
      {"record.attention", {Type::int_list, 0, 1e9}},
  };
  return r;
}

// Where plugin options live: any key below these prefixes is passed to the plugin.
const std::vector<std::string> open_sections = {"dataset.", "model.", "training.optimizer_options."};
const std::vector<std::string> sections = {"dataset", "model", "training", "evaluation", "record",
                                           "training.early_stopping", "training.optimizer_options", "sweep"};

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

bool is_plugin_option(const std::string& key) {
  for (const auto& p : open_sections)
    if (starts_with(key, p) && !rules().count(key)) return true;
  return false;
}

std::string type_name(Type t) {
  switch (t) {
    case Type::string: return "a string";
    case Type::integer: return "an integer";
    case Type::real: return "a number";
    case Type::boolean: return "true or false";
    case Type::string_list: return "a list of strings";
    case Type::int_list: return "a list of integers";
  }
  return "?";
}

class Reader {
 public:
  Reader(std::string file, std::vector<Diagnostic>& diags) : file_(std::move(file)), diags_(diags) {}

  std::string at(const YAML::Mark& m) const {
    return file_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  }
  void error(const std::string& where, const std::string& msg) { diags_.push_back({where, msg}); }

  // Flattens mapping `node` under `prefix` into `out`; `sweep` marks the sweep section.
  void flatten(const YAML::Node& node, const std::string& prefix, std::map<std::string, SpecValue>& out,
               std::vector<std::pair<std::string, SpecValue>>& sweep) {
    std::map<std::string, int> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node k = it->first;  // copies of the handles: it-> yields a temporary
      const YAML::Node v = it->second;
      if (!k.IsScalar()) {
        error(at(k.Mark()), "keys must be plain names");
        continue;
      }
      const std::string key = k.as<std::string>();
      const std::string full = prefix.empty() ? key : prefix + "." + key;
      if (const auto prev = seen.find(key); prev != seen.end()) {
        error(at(k.Mark()), "duplicate key '" + full + "' (first written on line " + std::to_string(prev->second) +
                                "); a key may appear once");
        continue;
      }
      seen[key] = k.Mark().line + 1;
      if (full == "sweep") {
        if (!v.IsMap()) {
          error(at(v.Mark()), "'sweep' must map keys to lists of values, e.g. sweep: {seed: [1, 2, 3]}");
          continue;
        }
        read_sweep(v, sweep);
        continue;
      }
      if (!v.IsMap() && out.count(full)) {  // also written as a nested key elsewhere
        const std::string& w = out[full].where;  // file:line:col
        const std::string line = w.substr(0, w.rfind(':')).substr(w.substr(0, w.rfind(':')).rfind(':') + 1);
        error(at(k.Mark()), "duplicate key '" + full + "' (also written on line " + line + "); a key may appear once");
        continue;
      }
      if (v.IsMap()) {
        flatten(v, full, out, sweep);
      } else if (v.IsSequence()) {
        out[full] = list_value(v, at(k.Mark()));
      } else if (v.IsNull()) {
        error(at(k.Mark()), "key '" + full + "' has no value");
      } else {
        out[full] = SpecValue{{v.as<std::string>()}, {at(v.Mark())}, false, at(k.Mark())};
      }
    }
  }

 private:
  SpecValue list_value(const YAML::Node& v, const std::string& where) {
    SpecValue sv;
    sv.is_list = true;
    sv.where = where;
    for (const auto& item : v) {
      if (!item.IsScalar()) {
        error(at(item.Mark()), "list items must be plain values");
        continue;
      }
      sv.items.push_back(item.as<std::string>());
      sv.item_where.push_back(at(item.Mark()));
    }
    return sv;
  }

  void read_sweep(const YAML::Node& node, std::vector<std::pair<std::string, SpecValue>>& sweep) {
    std::map<std::string, int> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      if (seen.count(key)) {
        error(at(it->first.Mark()), "duplicate key 'sweep." + key + "' (first written on line " +
                                        std::to_string(seen[key]) + "); a key may appear once");
        continue;
      }
      seen[key] = it->first.Mark().line + 1;
      if (!it->second.IsSequence() || it->second.size() == 0) {
        error(at(it->second.Mark()), "sweep values of '" + key + "' must be a non-empty list, e.g. [dot, additive]");
        continue;
      }
      sweep.emplace_back(key, list_value(it->second, at(it->first.Mark())));
    }
  }

  std::string file_;
  std::vector<Diagnostic>& diags_;
};

// All dotted keys the schema allows, for suggestions.
std::vector<std::string> known_keys() {
  std::vector<std::string> out;
  for (const auto& kv : rules()) out.push_back(kv.first);
  return out;
}

// Checks one value against its rule; returns the problem, or "" when fine.
std::string check_scalar(const std::string& key, const KeyRule& rule, const std::string& text) {
  const Type t = rule.type == Type::int_list ? Type::integer : rule.type == Type::string_list ? Type::string : rule.type;
  double value = 0;
  switch (t) {
    case Type::string:
      return text.empty() ? "'" + key + "' must not be empty" : "";
    case Type::boolean:
      return parse_option<bool>(text) ? "" : "'" + key + "' must be true or false, got '" + text + "'";
    case Type::integer: {
      const auto v = parse_option<long>(text);
      if (!v) return "'" + key + "' must be " + type_name(rule.type) + ", got '" + text + "'";
      value = static_cast<double>(*v);
      break;
    }
    case Type::real: {
      const auto v = parse_option<double>(text);
      if (!v) return "'" + key + "' must be a number, got '" + text + "'";
      value = *v;
      break;
    }
    default:
      break;
  }
  const bool low = rule.min_exclusive ? value <= rule.min : value < rule.min;
  if (low || value > rule.max) {
    std::string range = rule.min_exclusive ? "> " + option_text(rule.min) : ">= " + option_text(rule.min);
    if (rule.max < 1e8) range += " and <= " + option_text(rule.max);
    return "'" + key + "' must be " + range + ", got " + text;
  }
  return "";
}

// The keys a spec may have at the top.
const std::set<std::string>& top_level() {
  static const std::set<std::string> keys = {"name", "description", "seed", "output", "plugins", "dataset",
                                             "model", "training", "evaluation", "record", "sweep"};
  return keys;
}

// The location of a section key `top` given the location of one of its children: same file,
// but we only know the child's place; sections are reported where their first child is, one
// line up (YAML block style puts the section name on the line above).
std::string section_where(const std::string& child_where, const std::string&) {
  const auto last = child_where.rfind(':');
  const auto mid = child_where.rfind(':', last - 1);
  if (last == std::string::npos || mid == std::string::npos) return child_where;
  const int line = std::stoi(child_where.substr(mid + 1, last - mid - 1));
  return child_where.substr(0, mid) + ":" + std::to_string(std::max(1, line - 1)) + ":1";
}

// Validates the fixed keys of a flat table (plugin options are left to the plugins).
void check_table(const std::map<std::string, SpecValue>& table, std::vector<Diagnostic>& diags) {
  std::set<std::string> reported_sections;
  for (const auto& [key, value] : table) {
    if (is_plugin_option(key)) continue;
    const auto rule = rules().find(key);
    const std::string top = key.substr(0, key.find('.'));
    if (rule == rules().end() && top != key && !top_level().count(top)) {  // an unknown section
      if (reported_sections.insert(top).second) {
        std::string msg = "unknown key '" + top + "'";
        const std::string guess = closest_name(top, {top_level().begin(), top_level().end()});
        if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
        diags.push_back({section_where(value.where, top), msg});
      }
      continue;
    }
    if (rule == rules().end()) {
      std::string msg = "unknown key '" + key + "'";
      const std::string guess = closest_name(key, known_keys());
      if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
      else msg += " (see docs/spec.md for the keys a spec takes)";
      diags.push_back({value.where, msg});
      continue;
    }
    const bool list_rule = rule->second.type == Type::string_list || rule->second.type == Type::int_list;
    if (list_rule != value.is_list) {
      diags.push_back({value.where, "'" + key + "' must be " + type_name(rule->second.type)});
      continue;
    }
    for (std::size_t i = 0; i < value.items.size(); ++i) {
      const std::string problem = check_scalar(key, rule->second, value.items[i]);
      if (!problem.empty()) diags.push_back({value.is_list ? value.item_where[i] : value.item_where[0], problem});
    }
  }
  for (const std::string required : {"dataset.name", "model.name"})
    if (!table.count(required)) {
      const std::string section = required.substr(0, required.find('.'));
      std::string where;
      for (const auto& [k, v] : table)
        if (starts_with(k, section + ".")) { where = v.where; break; }
      diags.push_back({where, "missing '" + required + "' (which " + section + " to use)"});
    }
}

// Diagnostics in file order (line, then column); others (--set, whole file) keep their order.
void sort_by_position(std::vector<Diagnostic>& diags) {
  auto position = [](const std::string& where) {
    const auto last = where.rfind(':');
    const auto mid = last == std::string::npos ? std::string::npos : where.rfind(':', last - 1);
    if (mid == std::string::npos) return std::pair<long, long>{0, 0};
    try {
      return std::pair<long, long>{std::stol(where.substr(mid + 1, last - mid - 1)), std::stol(where.substr(last + 1))};
    } catch (const std::exception&) {
      return std::pair<long, long>{0, 0};
    }
  };
  std::stable_sort(diags.begin(), diags.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) { return position(a.where) < position(b.where); });
}

// A value written on the command line as key=value.
bool apply_override(const std::string& text, std::map<std::string, SpecValue>& table, std::vector<Diagnostic>& diags) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    diags.push_back({"--set " + text, "expected key=value, e.g. --set training.epochs=5"});
    return false;
  }
  const std::string key = text.substr(0, eq), raw = text.substr(eq + 1);
  SpecValue v;
  v.where = "--set " + text;
  try {
    const YAML::Node n = YAML::Load(raw);
    if (n.IsSequence()) {
      v.is_list = true;
      for (const auto& item : n) v.items.push_back(item.as<std::string>()), v.item_where.push_back(v.where);
    } else {
      v.items = {raw};
      v.item_where = {v.where};
    }
  } catch (const YAML::Exception&) {
    v.items = {raw};
    v.item_where = {v.where};
  }
  // The value replaces the key's whole value: a map of sub-keys under it goes
  // (--set model.attention=none on a spec that has model.attention.mode, .scoring).
  const std::string below = key + ".";
  for (auto it = table.lower_bound(below); it != table.end() && it->first.compare(0, below.size(), below) == 0;)
    it = table.erase(it);
  table[key] = v;
  return true;
}

std::string run_id(const std::vector<std::pair<std::string, std::string>>& point) {
  if (point.empty()) return "run";
  // The last segment of each swept key, unless two keys share it.
  std::map<std::string, int> last_count;
  for (const auto& [k, v] : point) last_count[k.substr(k.find_last_of('.') + 1)]++;
  std::string id;
  for (const auto& [k, v] : point) {
    const std::string last = k.substr(k.find_last_of('.') + 1);
    std::string part = (last_count[last] > 1 ? k : last) + "-" + v;
    for (char& c : part)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) c = '_';
    id += (id.empty() ? "" : "_") + part;
  }
  return id;
}

Options options_under(const std::map<std::string, SpecValue>& table, const std::string& prefix,
                      const std::set<std::string>& skip) {
  Options o;
  for (const auto& [k, v] : table)
    if (starts_with(k, prefix) && !skip.count(k)) {
      std::string text = v.is_list ? "" : v.text();
      if (v.is_list) {  // lists reach plugins as YAML flow text
        text = "[";
        for (std::size_t i = 0; i < v.items.size(); ++i) text += (i ? ", " : "") + v.items[i];
        text += "]";
      }
      o.set(k.substr(prefix.size()), text, v.is_list || v.item_where.empty() ? v.where : v.item_where[0], v.where);
    }
  return o;
}

template <class T>
T get(const std::map<std::string, SpecValue>& t, const std::string& key, T fallback) {
  const auto it = t.find(key);
  if (it == t.end()) return fallback;
  return *parse_option<T>(it->second.text());
}

RunPlan make_plan(const std::map<std::string, SpecValue>& table, const std::vector<std::pair<std::string, std::string>>& point) {
  RunPlan p;
  p.values = table;
  p.sweep_point = point;
  p.id = run_id(point);
  p.seed = static_cast<std::uint64_t>(get<long>(table, "seed", 0));
  p.dataset = get<std::string>(table, "dataset.name", "");
  p.dataset_options = options_under(table, "dataset.", {"dataset.name"});
  p.model = get<std::string>(table, "model.name", "");
  p.model_options = options_under(table, "model.", {"model.name"});
  TrainConfig& t = p.training;
  t.optimizer = {get<std::string>(table, "training.optimizer", "adam"), options_under(table, "training.optimizer_options.", {}),
                 table.count("training.optimizer") ? table.at("training.optimizer").where : ""};
  t.lr = static_cast<float>(get<double>(table, "training.lr", 1e-3));
  t.epochs = static_cast<std::size_t>(get<long>(table, "training.epochs", 10));
  t.batch_size = static_cast<std::size_t>(get<long>(table, "training.batch_size", 64));
  t.clip = get<double>(table, "training.clip", 0.0);
  t.shuffle = get<bool>(table, "training.shuffle", true);
  t.eval_every = static_cast<std::size_t>(get<long>(table, "training.eval_every", 1));
  t.early_stopping = get<std::string>(table, "training.early_stopping.metric", "");
  t.patience = static_cast<std::size_t>(get<long>(table, "training.early_stopping.patience", 5));
  p.evaluation.beam = static_cast<std::size_t>(get<long>(table, "evaluation.beam", 1));
  p.evaluation.alpha = get<double>(table, "evaluation.alpha", 0.75);
  p.evaluation_max_len_given = table.count("evaluation.max_len") > 0;
  p.evaluation.max_len = static_cast<std::size_t>(get<long>(table, "evaluation.max_len", 10));
  if (const auto it = table.find("record.attention"); it != table.end()) {
    for (const auto& item : it->second.items) p.record_attention.push_back(static_cast<std::size_t>(*parse_option<long>(item)));
  } else {
    p.record_attention = {0, 1, 2};
  }
  return p;
}

}  // namespace

namespace {

// Emits the flat entries [begin, end) (sorted, sharing the first `depth` segments) as nested maps.
using Entry = std::pair<std::vector<std::string>, const SpecValue*>;
void emit(YAML::Emitter& out, std::vector<Entry>::const_iterator begin, std::vector<Entry>::const_iterator end, std::size_t depth) {
  out << YAML::BeginMap;
  for (auto it = begin; it != end;) {
    const std::string& head = it->first[depth];
    auto group_end = it;
    while (group_end != end && group_end->first[depth] == head) ++group_end;
    out << YAML::Key << head << YAML::Value;
    if (it->first.size() == depth + 1) {
      const SpecValue& v = *it->second;
      if (v.is_list) {
        out << YAML::Flow << YAML::BeginSeq;
        for (const auto& item : v.items) out << item;
        out << YAML::EndSeq;
      } else {
        out << v.text();
      }
    } else {
      emit(out, it, group_end, depth + 1);
    }
    it = group_end;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string RunPlan::config_yaml() const {
  std::vector<Entry> entries;
  for (const auto& [key, v] : values) {
    std::vector<std::string> parts;
    std::stringstream ss(key);
    for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
    entries.emplace_back(std::move(parts), &v);
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.first < b.first; });
  YAML::Emitter out;
  emit(out, entries.begin(), entries.end(), 0);
  return out.c_str();
}

SpecResult read_spec(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    SpecResult result;
    result.diagnostics.push_back({path, "cannot read the spec file (does it exist?)"});
    return result;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return read_spec_text(buffer.str(), path, overrides);
}

SpecResult read_spec_text(const std::string& text, const std::string& path, const std::vector<std::string>& overrides) {
  SpecResult result;
  auto& diags = result.diagnostics;
  Spec spec;
  spec.path = path;
  spec.text = text;
  spec.directory = std::filesystem::path(path).parent_path().string();
  YAML::Node root;
  try {
    root = YAML::Load(spec.text);
  } catch (const YAML::ParserException& e) {
    diags.push_back({path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1),
                     "YAML syntax error: " + e.msg});
    return result;
  }
  if (!root.IsMap()) {
    diags.push_back({path, "a spec must be a YAML mapping of keys (dataset:, model:, training: ...)"});
    return result;
  }
  Reader reader(path, diags);
  std::map<std::string, SpecValue> table;
  std::vector<std::pair<std::string, SpecValue>> sweep;  // in the order written
  reader.flatten(root, "", table, sweep);
  for (const std::string& o : overrides) apply_override(o, table, diags);
  // --set sweep.KEY=[...] sets a sweep axis; --set KEY=value on a swept key fixes it (no sweep).
  for (auto it = table.begin(); it != table.end();) {
    if (it->first.rfind("sweep.", 0) != 0) { ++it; continue; }
    const std::string key = it->first.substr(6);
    SpecValue v = it->second;
    if (!v.is_list) {
      diags.push_back({v.where, "sweep values of '" + key + "' must be a non-empty list, e.g. [dot, additive]"});
    } else {
      auto axis = std::find_if(sweep.begin(), sweep.end(), [&](const auto& a) { return a.first == key; });
      if (axis != sweep.end()) axis->second = v;
      else sweep.emplace_back(key, v);
    }
    it = table.erase(it);
  }
  for (const std::string& o : overrides) {
    const std::string key = o.substr(0, o.find('='));
    if (key.rfind("sweep.", 0) == 0) continue;
    sweep.erase(std::remove_if(sweep.begin(), sweep.end(), [&](const auto& a) { return a.first == key; }), sweep.end());
  }
  check_table(table, diags);

  // Sweeps: each key must be a fixed key or a plugin option, each value valid for it.
  for (const auto& [key, values] : sweep) {
    if (std::find(sections.begin(), sections.end(), key) != sections.end() || key == "plugins" || key == "output") {
      diags.push_back({values.where, "cannot sweep over '" + key + "'"});
      continue;
    }
    if (is_plugin_option(key)) continue;  // checked when the plugin reads it
    const auto rule = rules().find(key);
    if (rule == rules().end()) {
      std::string msg = "sweep over unknown key '" + key + "'";
      const std::string guess = closest_name(key, known_keys());
      if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
      diags.push_back({values.where, msg});
      continue;
    }
    for (std::size_t i = 0; i < values.items.size(); ++i) {
      const std::string problem = check_scalar(key, rule->second, values.items[i]);
      if (!problem.empty()) diags.push_back({values.item_where[i], problem});
    }
  }
  sort_by_position(diags);
  if (!diags.empty()) return result;

  spec.name = get<std::string>(table, "name", std::filesystem::path(path).stem().string());
  spec.output = get<std::string>(table, "output", std::filesystem::path(path).stem().string() + ".h5");
  if (const auto it = table.find("plugins"); it != table.end()) spec.plugins = it->second.items;

  // Cartesian product of the sweep, keys in the order written, the last one varying fastest.
  const auto& axes = sweep;
  std::vector<std::size_t> index(axes.size(), 0);
  std::set<std::string> ids;
  while (true) {
    std::map<std::string, SpecValue> point_table = table;
    std::vector<std::pair<std::string, std::string>> point;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const SpecValue& v = axes[a].second;
      point_table[axes[a].first] = SpecValue{{v.items[index[a]]}, {v.item_where[index[a]]}, false, v.where};
      point.emplace_back(axes[a].first, v.items[index[a]]);
    }
    RunPlan plan = make_plan(point_table, point);
    if (!ids.insert(plan.id).second) {
      diags.push_back({axes.empty() ? path : axes[0].second.where, "two sweep points share the run id '" + plan.id +
                                                                       "' (a value listed twice?)"});
      return result;
    }
    plan.index = spec.runs.size();
    spec.runs.push_back(std::move(plan));
    std::size_t a = axes.size();
    while (a > 0 && ++index[a - 1] == axes[a - 1].second.items.size()) index[--a] = 0;
    if (a == 0) break;
  }
  result.spec = std::move(spec);
  return result;
}

}  // namespace attn
