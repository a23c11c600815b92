// Reading a spec end to end: parse the YAML, read it into a table (--set applied), validate it
// against the schema, expand the sweep and plan each run. See spec.hpp for the stages.
#include "lab/spec/spec.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "lab/spec/stages.hpp"

namespace attn {
namespace {

// The YAML mapping at the root of `text`, or nothing (with the reason in diags).
std::optional<YAML::Node> parse_yaml(const std::string& text, const std::string& path, std::vector<Diagnostic>& diags) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    diags.push_back({path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1),
                     "YAML syntax error: " + e.msg});
    return std::nullopt;
  }
  if (!root.IsMap()) {
    diags.push_back({path, "a spec must be a YAML mapping of keys (dataset:, model:, training: ...)"});
    return std::nullopt;
  }
  return root;
}

// The keys of the whole spec (not of a run), their defaults derived from the spec's path.
void read_spec_level_keys(const SpecTable& table, Spec& spec) {
  const std::string stem = std::filesystem::path(spec.path).stem().string();
  const auto text = [&](const std::string& key, const std::string& fallback) {
    const auto it = table.find(key);
    return it == table.end() ? fallback : it->second.text();
  };
  spec.name = text("name", stem);
  spec.output = text("output", stem + ".h5");
  if (const auto it = table.find("plugins"); it != table.end()) spec.plugins = it->second.items;
}

// Each diagnostic once (sweep points share most of their keys).
void append_new(const std::vector<Diagnostic>& found, std::vector<Diagnostic>& diags) {
  for (const Diagnostic& d : found)
    if (std::none_of(diags.begin(), diags.end(), [&](const Diagnostic& e) { return e.str() == d.str(); })) diags.push_back(d);
}

// One plan per sweep point, its training keys checked together; two points with one run id
// are an error (a value listed twice).
bool plan_runs(const WrittenSpec& written, Spec& spec, std::vector<Diagnostic>& diags) {
  std::set<std::string> ids;
  for (const PointSpec& point : expand_sweep(written)) {
    RunPlan plan = make_plan(point);
    std::vector<Diagnostic> found;
    check_training_plan(plan, found);
    append_new(found, diags);
    if (!ids.insert(plan.id).second) {
      diags.push_back({written.sweep.empty() ? spec.path : written.sweep[0].values.where,
                       "two sweep points share the run id '" + plan.id + "' (a value listed twice?)"});
      return false;
    }
    plan.index = spec.runs.size();
    spec.runs.push_back(std::move(plan));
  }
  return true;
}

}  // namespace

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
  const auto root = parse_yaml(text, path, result.diagnostics);
  if (!root) return result;
  const WrittenSpec written = read_written_spec(*root, path, overrides, result.diagnostics);
  check_written_spec(written, result.diagnostics);
  if (!result.diagnostics.empty()) return result;
  Spec spec;
  spec.path = path;
  spec.text = text;
  spec.directory = std::filesystem::path(path).parent_path().string();
  read_spec_level_keys(written.table, spec);
  if (plan_runs(written, spec, result.diagnostics) && result.diagnostics.empty()) result.spec = std::move(spec);
  return result;
}

}  // namespace attn
