// The spec schema: one table row per fixed key of an experiment spec, with its type, range,
// default and one-line doc. Validation (validation.cpp), --set (the same checks), run planning
// (planning.cpp), `attnlab keys` and the table in docs/spec.md all read this table; no default
// or range of a spec key is written anywhere else.
//
// A row's default is the value a default-constructed RunPlan holds for it (RunPlan, TrainConfig
// and DecodeOptions initialise their fields), so the table shows it and planning never repeats it.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "lab/spec/spec.hpp"

namespace attn {

enum class ValueType {
  string,
  integer,
  real,
  boolean,
  string_list,
  int_list,
  plugin_options,  // an open section: every key below it is a plugin's option
  sweep,           // sweep.<key>: a list of values for <key>
};

struct Bounds {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
};

struct SpecKey {
  std::string key;  // dotted; "model.<option>" for an open section
  ValueType type = ValueType::string;
  Bounds bounds;            // numeric keys (each item, for a list of ints)
  std::string range_doc;    // other keys: what a valid value is ("" = any non-empty text)
  std::string doc;          // one line: what the key does
  std::string default_doc;  // the default when a plan does not hold it: "(required)", a derived value
  // How a written value reaches a run's plan, and how the plan shows it (of RunPlan{}: the
  // default). Null for keys that belong to the whole spec (name, output, ...).
  void (*set)(RunPlan&, const SpecValue&) = nullptr;
  std::string (*show)(const RunPlan&) = nullptr;
  // Open sections: where the plugin's options go in the plan.
  Options& (*options)(RunPlan&) = nullptr;
  bool required = false;
  std::vector<std::string> choices;  // a string key with a fixed set of values (else empty)

  std::string prefix() const;  // of an open section: "model."
  std::string type_doc() const;     // "int"
  std::string type_phrase() const;  // "an integer", for messages
  std::string default_text() const;
  std::string range_text() const;
};

const std::vector<SpecKey>& spec_keys();
// The row of a fixed key (not of a plugin option), or null.
const SpecKey* find_spec_key(const std::string& key);
// The open section `key` falls in (it is a plugin option), or null.
const SpecKey* plugin_section_of(const std::string& key);
// What is wrong with `text` as a value (one item, for a list) of `row`; "" when it is fine.
std::string check_value(const SpecKey& row, const std::string& text);
// The table as shown by `attnlab keys` (markdown = the table in docs/spec.md).
std::string spec_keys_table(bool markdown);

}  // namespace attn
