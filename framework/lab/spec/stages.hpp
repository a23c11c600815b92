// The stages of reading a spec (spec.cpp runs them in order; see spec.hpp). Internal to the lab.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "lab/spec/spec.hpp"

namespace attn {

// One swept key and its values, in the order written.
struct SweepAxis {
  std::string key;
  SpecValue values;
};

// A spec as written, --set applied: the fixed table and the sweep axes.
struct WrittenSpec {
  SpecTable table;
  std::vector<SweepAxis> sweep;
  std::string path;                               // the spec file
  std::map<std::string, std::string> sections;    // "model" -> where its key is written
};

// reading.cpp: the YAML text (a mapping) flattened, then the overrides ("key=value") applied.
WrittenSpec read_written_spec(const YAML::Node& root, const std::string& path, const std::vector<std::string>& overrides,
                              std::vector<Diagnostic>& diags);

// The line and column of a "file:line:col" location ({0, 0} when it has none).
std::pair<long, long> line_column(const std::string& where);

// validation.cpp: every problem of the table and the sweep against the schema, in file order.
void check_written_spec(const WrittenSpec& spec, std::vector<Diagnostic>& diags);

// sweep.cpp: one table per point of the sweep's Cartesian product (the last axis varies
// fastest), with the point itself (swept key -> value).
struct PointSpec {
  SpecTable table;
  SweepPoint point;
};
std::vector<PointSpec> expand_sweep(const WrittenSpec& spec);
// A run's id from its sweep point: "scoring-dot_seed-2" ("run" without a sweep).
std::string run_id(const SweepPoint& point);

// planning.cpp: the plan of one sweep point (its table is valid).
RunPlan make_plan(const PointSpec& point);

// training_rules.cpp: the training keys of a plan that depend on each other (a schedule's or a
// decay's own keys, and the keys they need).
void check_training_plan(const RunPlan& plan, std::vector<Diagnostic>& diags);

}  // namespace attn
