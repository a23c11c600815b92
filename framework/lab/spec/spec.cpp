// Reading a spec end to end: parse the YAML, read it into a table (--set applied), validate it
// against the schema, expand the sweep and plan each run. See spec.hpp for the stages.
#include "lab/spec/spec.hpp"

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "attnlab/data/dataset.hpp"
#include "attnlab/file_kind.hpp"
#include "lab/files/absolute_path.hpp"
#include "lab/spec/stages.hpp"
#include "lab/spec/text_checks.hpp"

namespace attn {
namespace {

// The YAML mapping at the root of `text`, or nothing (with the reason in diags).
std::optional<YAML::Node> parse_yaml(const std::string& text, const std::string& path, std::vector<Diagnostic>& diags) {
  if (const auto problem = check_spec_text(text, path)) {
    diags.push_back(*problem);
    return std::nullopt;
  }
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    diags.push_back({path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1),
                     yaml_error_in_words(e.msg)});
    return std::nullopt;
  }
  if (documents.size() > 1) {  // point at the '---' that starts the second document
    std::size_t line = 0, separator = static_cast<std::size_t>(std::max(documents[1].Mark().line, 0));
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l) && line < static_cast<std::size_t>(documents[1].Mark().line); ++line)
      if (l.rfind("---", 0) == 0 && line > 0) separator = line;
    diags.push_back({path + ":" + std::to_string(separator + 1) + ":1",
                     "a second YAML document (after '---'): a spec is one document; put each experiment in its own file"});
    return std::nullopt;
  }
  if (documents.empty() || !documents[0].IsMap()) {
    const YAML::Mark at = documents.empty() ? YAML::Mark() : documents[0].Mark();
    diags.push_back({path + ":" + std::to_string(std::max(at.line, 0) + 1) + ":" + std::to_string(std::max(at.column, 0) + 1),
                     std::string("a spec must be a YAML mapping of keys (dataset:, model:, training: ...), not ") +
                         (documents.empty() || documents[0].IsNull() ? "an empty file" : documents[0].IsSequence() ? "a list" : "a single value")});
    return std::nullopt;
  }
  return documents[0];
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

// Plugin paths resolve as data paths do: against the spec's directory when the file is there,
// otherwise against the current directory. The resolved, absolute path is what each run's stored
// config keeps, so the commands that rebuild a run find the plugin from any directory.
void resolve_plugin_paths(SpecTable& table, const std::string& spec_directory) {
  const auto it = table.find("plugins");
  if (it == table.end()) return;
  for (std::string& path : it->second.items) {
    const std::string found = resolve_data_path(path, spec_directory);
    std::error_code ec;
    if (std::filesystem::exists(found, ec)) path = absolute_path(found);
  }
}

// --plugin libraries join the spec's `plugins`, absolute as the resolved ones are; each is
// named in messages as the option that gave it.
void add_command_line_plugins(SpecTable& table, const std::vector<std::string>& plugins) {
  if (plugins.empty()) return;
  SpecValue& listed = table["plugins"];
  if (listed.where.empty()) listed.where = "--plugin";
  listed.is_list = true;
  for (const std::string& path : plugins) {
    listed.items.push_back(absolute_path(path));
    listed.item_where.push_back("--plugin " + path);
  }
}

// Each diagnostic once (sweep points share most of their keys).
void append_new(const std::vector<Diagnostic>& found, std::vector<Diagnostic>& diags) {
  for (const Diagnostic& d : found)
    if (std::none_of(diags.begin(), diags.end(), [&](const Diagnostic& e) { return e.str() == d.str(); })) diags.push_back(d);
}

// What a sweep value means, however written: 1, 01 and +1 are one number; 0.1 and 1e-1 too;
// true, yes and on one boolean.
std::string meaning(const std::string& value) {
  if (const auto x = parse_option<double>(value)) {
    char text[32];
    std::snprintf(text, sizeof text, "number %.17g", *x);
    return text;
  }
  if (const auto b = parse_option<bool>(value)) return *b ? "boolean true" : "boolean false";
  return "text " + value;
}

// A value listed twice on one axis (as written, or spelled differently) would run twice.
void check_distinct_values(const WrittenSpec& written, std::vector<Diagnostic>& diags) {
  for (const SweepAxis& axis : written.sweep) {
    const std::vector<std::string>& items = axis.values.items;
    std::map<std::string, std::size_t> first;  // meaning -> the item that said it first
    for (std::size_t j = 0; j < items.size(); ++j)
      if (const auto [it, fresh] = first.emplace(meaning(items[j]), j); !fresh)
        diags.push_back({axis.values.item_where[j], "'" + items[j] + "' is the value '" + items[it->second] +
                                                        "' listed before on this sweep axis: each value runs once; remove one"});
  }
}

// One plan per sweep point, its training keys checked together; two points with one run id
// are an error (a value listed twice).
bool plan_runs(const WrittenSpec& written, Spec& spec, std::vector<Diagnostic>& diags) {
  double runs = 1;
  std::string sizes;
  for (const SweepAxis& axis : written.sweep) {
    runs *= static_cast<double>(axis.values.items.size());
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(axis.values.items.size());
  }
  if (runs > static_cast<double>(max_sweep_runs)) {
    diags.push_back({written.sweep[0].values.where, "the sweep makes " + sizes + " = " + std::to_string(static_cast<long long>(std::min(runs, 1e18))) +
                                                        " runs; a spec plans at most " + std::to_string(max_sweep_runs) +
                                                        ": sweep fewer values, or split the study into several specs"});
    return false;
  }
  check_distinct_values(written, diags);
  if (!diags.empty()) return false;
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

// Why `path` cannot be read as a spec file, or "" when it can: it must be a regular file of at
// most max_spec_bytes (a FIFO is never opened: it could block forever).
std::string unreadable_spec(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const std::string what = not_a_regular_file(path); !what.empty())
    return what == "no such file" ? no_file_reason(path) : what == "permission denied" ? what : what + ", not a spec file";
  if (fs::file_size(path, ec) > max_spec_bytes)
    return "the file is " + std::to_string(fs::file_size(path, ec) / 1024) + " KB; a spec is at most " +
           std::to_string(max_spec_bytes / 1024) + " KB (a data file given as the spec?)";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "permission denied";
  char signature[8] = {};
  in.read(signature, sizeof signature);
  if (in.gcount() == 8 && std::string(signature, 8) == std::string("\x89HDF\r\n\x1a\n", 8))
    return "this is an HDF5 file (attnlab's results?), not a spec: `attnlab inspect " + path + "` shows what it holds";
  return "";
}

}  // namespace

SpecResult read_spec(const std::string& path, const std::vector<std::string>& overrides, const std::vector<std::string>& plugins) {
  if (const std::string why = unreadable_spec(path); !why.empty()) {
    SpecResult result;
    result.diagnostics.push_back({path, "cannot read the spec: " + why});
    return result;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return read_spec_text(buffer.str(), path, overrides, plugins);
}

SpecResult read_spec_text(const std::string& text, const std::string& path, const std::vector<std::string>& overrides,
                          const std::vector<std::string>& plugins) {
  SpecResult result;
  for (const std::string& plugin : plugins)
    if (plugin.empty()) result.diagnostics.push_back({"--plugin ''", "an empty path: give the path of a plugin library (a .so file)"});
  if (!result.diagnostics.empty()) return result;
  const auto root = parse_yaml(text, path, result.diagnostics);
  if (!root) return result;
  WrittenSpec written = read_written_spec(*root, path, overrides, result.diagnostics);
  check_written_spec(written, result.diagnostics);
  if (!result.diagnostics.empty()) return result;
  Spec spec;
  spec.path = path;
  spec.text = text;
  spec.directory = std::filesystem::path(path).parent_path().string();
  resolve_plugin_paths(written.table, spec.directory);
  add_command_line_plugins(written.table, plugins);
  read_spec_level_keys(written.table, spec);
  if (plan_runs(written, spec, result.diagnostics) && result.diagnostics.empty()) result.spec = std::move(spec);
  return result;
}

}  // namespace attn
