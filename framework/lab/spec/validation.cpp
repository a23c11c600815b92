// Validating a written spec against the schema: every fixed key known and well typed, within its
// range, the required keys present, every swept key sweepable and each of its values valid.
// Plugin options are left to the plugins (they check what they read when constructed).
#include <algorithm>
#include <set>

#include "attnlab/suggest.hpp"
#include "lab/spec/schema.hpp"
#include "lab/spec/stages.hpp"

namespace attn {
namespace {

std::string first_segment(const std::string& key) { return key.substr(0, key.find('.')); }

// The keys a spec may have at the top: the first segments of the schema's keys.
std::vector<std::string> top_level_keys() {
  std::set<std::string> tops;
  for (const SpecKey& row : spec_keys()) tops.insert(first_segment(row.key));
  return {tops.begin(), tops.end()};
}

std::vector<std::string> fixed_keys() {
  std::vector<std::string> out;
  for (const SpecKey& row : spec_keys())
    if (find_spec_key(row.key)) out.push_back(row.key);
  return out;
}

std::string unknown_key(const std::string& what, const std::string& key, const std::vector<std::string>& known) {
  const auto leaf = [&](const std::string& k) {  // no other key lies under it
    return std::none_of(known.begin(), known.end(), [&](const std::string& other) { return other.rfind(k + ".", 0) == 0; });
  };
  for (const std::string& k : known)  // a mapping under a key that takes one value: 'training.epochs: {a: 1}'
    if (key.rfind(k + ".", 0) == 0 && find_spec_key(k) && leaf(k))
      return "'" + k + "' takes " + find_spec_key(k)->type_phrase() + ", not a mapping: '" + key.substr(k.size() + 1) +
             "' is given under it; write '" + k + ": VALUE'";
  const std::string guess = closest_name(key, known);
  return what + " '" + key + "'" + (guess.empty() ? " (see docs/spec.md or `attnlab keys` for the keys a spec takes)"
                                                  : "; did you mean '" + guess + "'?");
}

// A section is reported where its first child is, one line up (YAML block style puts the
// section's name on the line above).
std::string section_where(const std::string& child_where) {
  const auto [line, column] = line_column(child_where);
  if (line == 0) return child_where;
  const std::string file = child_where.substr(0, child_where.rfind(':', child_where.rfind(':') - 1));
  return file + ":" + std::to_string(std::max(1L, line - 1)) + ":1";
}

void check_items(const SpecKey& row, const SpecValue& value, std::vector<Diagnostic>& diags) {
  for (std::size_t i = 0; i < value.items.size(); ++i) {
    const std::string problem = check_value(row, value.items[i]);
    if (!problem.empty()) diags.push_back({i < value.item_where.size() ? value.item_where[i] : value.where, problem});
  }
}

bool is_section(const std::string& key) {
  for (const SpecKey& row : spec_keys())
    if (row.key.rfind(key + ".", 0) == 0) return true;
  return false;
}

void check_fixed_key(const std::string& key, const SpecValue& value, const WrittenSpec& spec,
                     std::set<std::string>& unknown_sections, std::vector<Diagnostic>& diags) {
  const SpecKey* row = find_spec_key(key);
  const std::string top = first_segment(key);
  const auto tops = top_level_keys();
  if (!row && top != key && std::find(tops.begin(), tops.end(), top) == tops.end()) {
    const auto written = spec.sections.find(top);  // where "top:" is written, if it is
    if (unknown_sections.insert(top).second)
      diags.push_back({written != spec.sections.end() ? written->second : section_where(value.where), unknown_key("unknown key", top, tops)});
    return;
  }
  if (!row && is_section(key)) {  // model: seq2seq, or --set model=transformer
    const std::string example = value.items.empty() ? "..." : value.items[0];
    diags.push_back({value.where, "'" + key + "' is a section of keys, not a value" +
                                      (find_spec_key(key + ".name") ? ": did you mean '" + key + ".name: " + example + "'?"
                                                                    : ": write its keys under it, e.g. " + key + ": {...}")});
    return;
  }
  if (!row) {
    diags.push_back({value.where, unknown_key("unknown key", key, fixed_keys())});
    return;
  }
  const bool list_row = row->type == ValueType::string_list || row->type == ValueType::int_list;
  if (list_row != value.is_list) {
    diags.push_back({value.where, "'" + key + "' must be " + row->type_phrase()});
    return;
  }
  check_items(*row, value, diags);
}

// A missing required key is reported at its section's key ("model:"), or at the file's first
// line when the section is not written at all.
void check_required(const WrittenSpec& spec, std::vector<Diagnostic>& diags) {
  for (const SpecKey& row : spec_keys()) {
    const std::string section = first_segment(row.key);
    if (!row.required || spec.table.count(row.key) || spec.table.count(section)) continue;  // "model: x" has its own error
    const auto written = spec.sections.find(section);
    const std::string where = written != spec.sections.end() ? written->second : spec.path + ":1:1";
    diags.push_back({where, "missing '" + row.key + "' (which " + section + " to use)" +
                                (written != spec.sections.end() ? "" : ": add a '" + section + ":' section with its 'name:'")});
  }
}


void check_sweep(const SweepAxis& axis, std::vector<Diagnostic>& diags) {
  const SpecKey* row = find_spec_key(axis.key);
  if (!row && !is_section(axis.key) && plugin_section_of(axis.key)) return;  // checked when the plugin reads it
  if (is_section(axis.key) || (row && !row->set)) {  // a whole section, or a key of the whole spec (output, plugins)
    diags.push_back({axis.values.where, "cannot sweep over '" + axis.key + "'"});
    return;
  }
  if (!row) {
    diags.push_back({axis.values.where, unknown_key("sweep over unknown key", axis.key, fixed_keys())});
    return;
  }
  check_items(*row, axis.values, diags);
}

// Diagnostics in file order (line, then column); others (--set, whole file) keep their order.
void sort_by_position(std::vector<Diagnostic>& diags) {
  std::stable_sort(diags.begin(), diags.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return line_column(a.where) < line_column(b.where); });
}

}  // namespace

void check_written_spec(const WrittenSpec& spec, std::vector<Diagnostic>& diags) {
  std::set<std::string> unknown_sections;
  for (const auto& [key, value] : spec.table)
    if (!plugin_section_of(key)) check_fixed_key(key, value, spec, unknown_sections, diags);
  check_required(spec, diags);
  for (const SweepAxis& axis : spec.sweep) check_sweep(axis, diags);
  sort_by_position(diags);
}

}  // namespace attn
