// Experiment specs: YAML in, validated run plans out.
//
// A spec is read into a flat table of dotted keys ("model.attention.scoring") whose values
// remember where they were written (file:line:col). The fixed keys (seed, output, training.*,
// ...) are checked against the schema in schema.cpp; the options of the plugins a spec
// names (dataset.*, model.*, training.optimizer_options.*) are checked by constructing those
// plugins, which read them. A sweep expands the spec into runs; --set overrides keys.
// Validation collects every problem of the file before any work is done.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/models/sequence_model.hpp"
#include "attnlab/options.hpp"
#include "attnlab/training/trainer.hpp"

namespace attn {

struct Diagnostic {
  std::string where;  // file:line:col (or file, or "--set")
  std::string message;
  std::string str() const { return where.empty() ? message : where + ": " + message; }
};

// A scalar value or a list of them, as written.
struct SpecValue {
  std::vector<std::string> items;  // one item for a scalar
  std::vector<std::string> item_where;
  bool is_list = false;
  std::string where;  // of the key
  // The scalar's text ("" for an empty list).
  std::string text() const { return items.empty() ? std::string() : items[0]; }
};

// Everything one run needs, resolved from the spec and its sweep point.
struct RunPlan {
  std::string id;                                      // stable, readable: "scoring-dot_seed-2"
  std::size_t index = 0;                               // position in the sweep
  std::vector<std::pair<std::string, std::string>> sweep_point;  // swept key -> value
  std::map<std::string, SpecValue> values;             // the resolved flat table
  std::uint64_t seed = 0;
  std::string dataset;
  Options dataset_options;
  std::string model;
  Options model_options;
  TrainConfig training;
  DecodeOptions evaluation;
  bool evaluation_max_len_given = false;
  std::vector<std::size_t> record_attention;
  std::string config_yaml() const;  // the resolved config, as YAML
};

struct Spec {
  std::string path;       // as given
  std::string directory;  // of the spec file (relative dataset paths start here)
  std::string text;       // the YAML text
  std::string name;
  std::string output;
  std::vector<std::string> plugins;
  std::vector<RunPlan> runs;
};

struct SpecResult {
  std::optional<Spec> spec;             // set when there are no diagnostics
  std::vector<Diagnostic> diagnostics;  // every problem found, in file order
};

// Reads, checks against the schema and expands `path`; overrides are "key=value" (--set).
// Plugin-level checks need the registries (see validate_runs).
SpecResult read_spec(const std::string& path, const std::vector<std::string>& overrides);
// The same for YAML text; `path` names it in messages and anchors relative paths.
SpecResult read_spec_text(const std::string& text, const std::string& path, const std::vector<std::string>& overrides);

// The documentation of every fixed key: {key, type, default, range/choices, meaning}.
struct SpecKeyDoc {
  std::string key, type, default_value, range, meaning;
};
const std::vector<SpecKeyDoc>& spec_schema();

}  // namespace attn
