// Experiment specs: YAML in, validated run plans out.
//
// A spec is read into a flat table of dotted keys ("model.attention.scoring") whose values
// remember where they were written (file:line:col). The fixed keys (seed, output, training.*,
// ...) are checked against the schema (schema.hpp); the options of the plugins a spec names
// (dataset.*, model.*, training.optimizer_options.*) are checked by constructing those plugins,
// which read them. A sweep expands the spec into runs; --set overrides keys. Validation collects
// every problem of the file before any work is done.
//
// The stages, one file each: reading.cpp (YAML and --set into a flat table), validation.cpp
// (the table against the schema), sweep.cpp (one table per sweep point), planning.cpp (a table
// into a RunPlan); spec.cpp runs them in order.
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

// Where a value given with --set says it was written: "--set key=value".
inline const std::string set_origin = "--set ";
// The largest spec file read (a spec of every key is a few KB; a bigger file is a mistake).
constexpr std::size_t max_spec_bytes = 1024 * 1024;
// The most runs one spec's sweep may plan (each run is planned and validated before any
// starts; 20 000 took 11 s and 370 MB to validate). Larger studies are several specs.
constexpr std::size_t max_sweep_runs = 10000;

// A scalar value or a list of them, as written.
struct SpecValue {
  std::vector<std::string> items;  // one item for a scalar
  std::vector<std::string> item_where;
  bool is_list = false;
  std::string where;  // of the key
  // The scalar's text ("" for an empty list).
  std::string text() const { return items.empty() ? std::string() : items[0]; }
};

// A spec as a flat table: dotted key -> value.
using SpecTable = std::map<std::string, SpecValue>;

// The swept keys of a run and their values, in the order the sweep lists them.
using SweepPoint = std::vector<std::pair<std::string, std::string>>;

// Everything one run needs, resolved from the spec and its sweep point.
struct RunPlan {
  std::string id;                                      // stable, readable: "scoring-dot_seed-2"
  std::size_t index = 0;                               // position in the sweep
  SweepPoint sweep_point;                              // swept key -> value
  SpecTable values;                                    // the resolved flat table
  std::uint64_t seed = 0;
  std::string dataset;
  Options dataset_options;
  std::string model;
  Options model_options;
  TrainConfig training;
  DecodeOptions evaluation;                            // beam and alpha (max_len: below)
  std::optional<std::size_t> max_len;                 // decoding steps; unset: the dataset's num_steps
  std::vector<std::size_t> lengths;                    // evaluation.lengths: the final model at other lengths
  std::string config_yaml() const;  // the resolved config, as YAML
  // Where `key` was written (file:line:col, or the --set that gave it); `fallback` when nowhere.
  std::string where(const std::string& key, const std::string& fallback = "") const;
  SweepPoint overrides() const;      // the keys set by --set, and their values, by key
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

// Whether two runs' configs (RunPlan::config_yaml()) describe the same run: equal but for their
// `plugins`. Those are the libraries' paths, which change when a library moves or is named from
// another directory, and are not kept by files or checkpoints of an attnlab that did not store
// --plugin libraries; what a run uses of them, the config names (`scoring: cosine`).
bool same_run_configuration(const std::string& a, const std::string& b);

// Reads, checks against the schema and expands `path`; overrides are "key=value" (--set).
// `plugins` are libraries given on the command line (--plugin): they join the spec's `plugins`,
// after its own, so each run's stored config lists every library it was trained with and the
// commands that rebuild a run load them. Plugin-level checks need the registries (see validate_runs).
SpecResult read_spec(const std::string& path, const std::vector<std::string>& overrides,
                     const std::vector<std::string>& plugins = {});
// The same for YAML text; `path` names it in messages and anchors relative paths.
SpecResult read_spec_text(const std::string& text, const std::string& path, const std::vector<std::string>& overrides,
                          const std::vector<std::string>& plugins = {});

}  // namespace attn
