// Run planning: a valid table (one sweep point) into the RunPlan a run needs. The schema binds
// each fixed key to its plan field; a key the spec does not write keeps the field's initial
// value, which is the key's default. Plugin options go, as Options, to their plugin.
#include <sstream>

#include "lab/spec/schema.hpp"
#include "lab/spec/stages.hpp"

namespace attn {
namespace {

// The keys below an open section's prefix, the prefix removed. Lists reach plugins as YAML flow text.
Options options_under(const SpecTable& table, const std::string& prefix) {
  Options o;
  for (auto it = table.lower_bound(prefix); it != table.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    const auto& [key, v] = *it;
    if (find_spec_key(key)) continue;  // a fixed key under the prefix (model.name)
    std::string text = v.text();
    if (v.is_list) {
      text = "[";
      for (std::size_t i = 0; i < v.items.size(); ++i) text += (i ? ", " : "") + v.items[i];
      text += "]";
    }
    o.set(key.substr(prefix.size()), text, v.is_list || v.item_where.empty() ? v.where : v.item_where[0], v.where);
  }
  return o;
}

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

RunPlan make_plan(const PointSpec& point) {
  RunPlan p;
  p.values = point.table;
  p.values.erase("output");  // where the sweep's results go is no part of a run (parts of one sweep name their own)
  p.sweep_point = point.point;
  p.id = run_id(point.point);
  for (const SpecKey& row : spec_keys()) {
    if (row.options) row.options(p) = options_under(point.table, row.prefix());
    const auto it = point.table.find(row.key);
    if (row.set && it != point.table.end()) row.set(p, it->second);
  }
  return p;
}

std::string RunPlan::where(const std::string& key, const std::string& fallback) const {
  const auto it = values.find(key);
  return it == values.end() ? fallback : it->second.where;
}

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

namespace {

std::string without_plugins(const std::string& config) {
  YAML::Node node = YAML::Load(config);
  if (node.IsMap()) node.remove("plugins");
  YAML::Emitter out;
  out << node;
  return out.c_str();
}

}  // namespace

bool same_run_configuration(const std::string& a, const std::string& b) {
  if (a == b) return true;
  try {
    return without_plugins(a) == without_plugins(b);
  } catch (const YAML::Exception&) {  // a stored config another program damaged: not the same
    return false;
  }
}

SweepPoint RunPlan::overrides() const {
  SweepPoint out;
  for (const auto& [key, v] : values)
    if (v.where.rfind(set_origin, 0) == 0) {
      std::string text;
      for (std::size_t i = 0; i < v.items.size(); ++i)  // (libraries --plugin added to a --set plugins list are no --set value)
        if (i >= v.item_where.size() || v.item_where[i].rfind("--plugin ", 0) != 0) text += (text.empty() ? "" : ", ") + v.items[i];
      out.emplace_back(key, v.is_list ? "[" + text + "]" : text);
    }
  return out;
}

}  // namespace attn
