// Reading a spec: the YAML mapping flattened into dotted keys that remember where they were
// written, the sweep section into axes, then the --set overrides applied on top.
#include <algorithm>
#include <set>

#include "attnlab/data/text.hpp"
#include "lab/spec/stages.hpp"

namespace attn {
namespace {

class Reader {
 public:
  Reader(std::string file, std::vector<Diagnostic>& diags) : file_(std::move(file)), diags_(diags) {}

  // Flattens mapping `node` under `prefix` into spec.table (the sweep section into spec.sweep).
  void flatten(const YAML::Node& node, const std::string& prefix, WrittenSpec& spec) {
    std::map<std::string, int> seen;  // key -> line
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node k = it->first;  // copies of the handles: it-> yields a temporary
      const YAML::Node v = it->second;
      if (!k.IsScalar()) {
        error(k, "keys must be plain names");
        continue;
      }
      if (++keys_ > max_spec_keys) {  // aliases of aliases can make a short file expand without end
        if (keys_ == max_spec_keys + 1)
          error(k, "the spec expands to more than " + std::to_string(max_spec_keys) +
                       " keys (YAML aliases that repeat each other?); write the keys out");
        return;
      }
      if (tagged(k, v)) continue;
      const std::string full = prefix.empty() ? k.Scalar() : prefix + "." + k.Scalar();
      if (!first_time(k, full, seen)) continue;
      if (full == "sweep") {
        read_sweep(v, spec.sweep);
      } else if (v.IsMap()) {
        spec.sections[full] = at(k);
        flatten(v, full, spec);
      } else if (spec.table.count(full)) {  // also written as a nested key elsewhere
        error(k, "duplicate key '" + full + "' (also written on line " +
                     std::to_string(line_column(spec.table[full].where).first) + "); a key may appear once");
      } else if (v.IsNull()) {
        error(k, "key '" + full + "' has no value");
      } else {
        spec.table[full] = v.IsSequence() ? list_value(v, at(k)) : SpecValue{{v.Scalar()}, {at(v)}, false, at(k)};
      }
    }
  }

 private:
  std::string at(const YAML::Node& n) const {
    return file_ + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
  }
  void error(const YAML::Node& n, const std::string& msg) { diags_.push_back({at(n), msg}); }

  bool first_time(const YAML::Node& k, const std::string& full, std::map<std::string, int>& seen) {
    const auto [prev, inserted] = seen.emplace(k.Scalar(), k.Mark().line + 1);
    if (!inserted)
      error(k, "duplicate key '" + full + "' (first written on line " + std::to_string(prev->second) + "); a key may appear once");
    return inserted;
  }

  // An explicit YAML tag (!!str, !!null, !custom ...) is refused: attnlab reads plain values, and
  // `--set` reads a tag as text, so a tag in the file would mean one thing there, another here.
  bool tagged(const YAML::Node& key, const YAML::Node& value) {
    const std::string tag = explicit_tag(value);
    if (tag.empty()) return false;
    error(value, "the value of '" + key.Scalar() + "' has the YAML tag '" + tag + "'; attnlab reads plain values: remove the tag");
    return true;
  }
  // A node's tag as written (!!str, !custom), or "" for none (yaml-cpp's "?" and "!").
  static std::string explicit_tag(const YAML::Node& n) {
    const std::string& tag = n.Tag();
    const std::string core = "tag:yaml.org,2002:";
    if (tag.empty() || tag == "?" || tag == "!") return "";
    return tag.rfind(core, 0) == 0 ? "!!" + tag.substr(core.size()) : tag;
  }

  SpecValue list_value(const YAML::Node& v, const std::string& where) {
    SpecValue sv;
    sv.is_list = true;
    sv.where = where;
    for (const auto& item : v) {
      if (!item.IsScalar()) {
        error(item, "list items must be plain values");
        continue;
      }
      if (const std::string tag = explicit_tag(item); !tag.empty()) {
        error(item, "this list item has the YAML tag '" + tag + "'; attnlab reads plain values: remove the tag");
        continue;
      }
      sv.items.push_back(item.Scalar());
      sv.item_where.push_back(at(item));
    }
    return sv;
  }

  void read_sweep(const YAML::Node& node, std::vector<SweepAxis>& sweep) {
    if (!node.IsMap()) {
      error(node, "'sweep' must map keys to lists of values, e.g. sweep: {seed: [1, 2, 3]}");
      return;
    }
    std::map<std::string, int> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node k = it->first;
      const YAML::Node v = it->second;
      if (!k.IsScalar()) {
        error(k, "keys must be plain names");
        continue;
      }
      if (!first_time(k, "sweep." + k.Scalar(), seen)) continue;
      if (!v.IsSequence() || v.size() == 0) {
        error(v, "sweep values of '" + k.Scalar() + "' must be a non-empty list, e.g. [dot, additive]");
        continue;
      }
      sweep.push_back({k.Scalar(), list_value(v, at(k))});
    }
  }

  static constexpr std::size_t max_spec_keys = 100000;  // specs have hundreds
  std::string file_;
  std::vector<Diagnostic>& diags_;
  std::size_t keys_ = 0;
};

// What is said of a value that holds the control character c.
std::string control_character_in_value(char c) {
  return "a control character (" + code_point_name(c) +
         ") in this value (an escape such as \\n or \\x1b in a quoted value?): values are printable text; remove it";
}

// Whether `raw`, which starts with '[', is one flow list and nothing after it but spaces and a
// comment: yaml-cpp reads the first list and ignores the rest ("[1, 2]x", "[1] [2]"). Quotes
// open a quoted item only at an item's start (a quote inside a plain value is text: [it's]).
bool one_flow_list(const std::string& raw) {
  std::size_t depth = 0, i = raw.find('[');
  bool item_start = true;
  char quote = 0;
  for (; i < raw.size(); ++i) {
    const char c = raw[i];
    if (quote) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == quote && !(quote == '\'' && i + 1 < raw.size() && raw[i + 1] == '\'' && ++i)) quote = 0;
      continue;
    }
    if ((c == '"' || c == '\'') && item_start) quote = c;
    else if (c == '[' || c == '{') ++depth;
    else if ((c == ']' || c == '}') && --depth == 0) break;
    if (c != ' ') item_start = c == '[' || c == '{' || c == ',' || c == ':';
  }
  if (i >= raw.size()) return false;  // never closed
  const std::size_t rest = raw.find_first_not_of(" \t", i + 1);
  return rest == std::string::npos || (raw[rest] == '#' && rest > i + 1);
}

// The value of a --set: YAML flow text, a list when it reads as one.
SpecValue override_value(const std::string& raw, const std::string& where) {
  SpecValue v;
  v.where = where;
  try {
    const YAML::Node n = YAML::Load(raw);
    const auto first = raw.find_first_not_of(" \t");
    if (n.IsSequence() && (first == std::string::npos || raw[first] != '[' || one_flow_list(raw))) {
      for (const auto& item : n) v.items.push_back(item.as<std::string>()), v.item_where.push_back(where);
      v.is_list = true;  // after the items: a list or map inside one throws, and the value is not a list
      return v;
    }
    if (n.IsScalar() && (raw.front() == '"' || raw.front() == '\'')) {  // a quoted value reads as in the file: "2" is 2
      v.items = {n.Scalar()};
      v.item_where = {where};
      return v;
    }
  } catch (const YAML::Exception&) {  // not YAML: the text as written
  }
  v.items = {raw};
  v.item_where = {where};
  return v;
}

// --set KEY=value replaces the key's whole value: a map of sub-keys under it goes (--set
// model.attention=none on a spec that has model.attention.mode). --set sweep.KEY=[...] sets a
// sweep axis; --set KEY=value on a swept key is refused (--set sweep.KEY=[value] says it).
void apply_override(const std::string& text, WrittenSpec& spec, std::vector<Diagnostic>& diags) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    diags.push_back({set_origin + text, "expected key=value, e.g. --set training.epochs=5"});
    return;
  }
  if (const auto bad = invalid_utf8_at(text)) {
    diags.push_back({set_origin + valid_utf8(text), "not valid UTF-8 at byte " + std::to_string(*bad + 1) +
                                                        "; write --set values in UTF-8, as the spec is"});
    return;
  }
  if (const auto bad = control_character_at(text)) {
    diags.push_back({set_origin + without_control_characters(text),  // never echoed raw to the terminal
                     "a control character (" + code_point_name(text[*bad]) + ") at byte " +
                                             std::to_string(*bad + 1) + ": values are printable text; remove it"});
    return;
  }
  const std::string key = text.substr(0, eq);
  const SpecValue value = override_value(text.substr(eq + 1), set_origin + text);
  for (const std::string& item : value.items)
    if (const auto bad = control_character_at(item)) {  // from an escape in a quoted value ("a\x1b")
      diags.push_back({value.where, control_character_in_value(item[*bad])});
      return;
    }
  if (const auto first = text.find_first_not_of(" \t", eq + 1); !value.is_list && first != std::string::npos && text[first] == '[') {
    diags.push_back({value.where, "'" + text.substr(eq + 1) + "' starts a list but is not a list of values (a '[' without its "
                                  "']', text after it, or a list inside it?); write a list as [a, b], e.g. --set sweep.seed=[1, 2]"});
    return;
  }
  auto axis = std::find_if(spec.sweep.begin(), spec.sweep.end(), [&](const SweepAxis& a) { return "sweep." + a.key == key; });
  if (key.rfind("sweep.", 0) == 0) {
    if (!value.is_list || value.items.empty())
      diags.push_back({value.where, "sweep values of '" + key.substr(6) + "' must be a non-empty list, e.g. [dot, additive]"});
    else if (axis != spec.sweep.end()) axis->values = value;
    else spec.sweep.push_back({key.substr(6), value});
    return;
  }
  if (std::any_of(spec.sweep.begin(), spec.sweep.end(), [&](const SweepAxis& a) { return a.key == key; })) {
    diags.push_back({value.where, "'" + key + "' is swept (sweep." + key + " in the spec); --set " + key +
                                      "=... would drop that axis unseen: to run only this value, use --set sweep." + key + "=[" +
                                      text.substr(eq + 1) + "]"});
    return;
  }
  const std::string below = key + ".";
  for (auto it = spec.table.lower_bound(below); it != spec.table.end() && it->first.compare(0, below.size(), below) == 0;)
    it = spec.table.erase(it);
  spec.table[key] = value;
}

// Keys and values hold printable text: a control character written as a YAML escape ("\x1b",
// "\n" in a double-quoted value) would reach terminals, run names and the results file raw.
// Reported, each such character becomes '?', so that later messages never echo it.
void check_printable(WrittenSpec& spec, std::vector<Diagnostic>& diags) {
  const auto check = [&](const std::string& key, SpecValue& v) {
    if (const auto bad = control_character_at(key))
      diags.push_back({v.where, "a control character (" + code_point_name(key[*bad]) + ") in this key: keys are plain names"});
    for (std::size_t i = 0; i < v.items.size(); ++i)
      if (const auto bad = control_character_at(v.items[i]))
        diags.push_back({v.item_where.at(i), control_character_in_value(v.items[i][*bad])});
    for (std::string& item : v.items) item = without_control_characters(std::move(item));
  };
  for (auto& [key, value] : spec.table) check(key, value);
  for (SweepAxis& axis : spec.sweep) check(axis.key, axis.values);
}

}  // namespace

std::pair<long, long> line_column(const std::string& where) {
  const auto last = where.rfind(':');
  const auto mid = last == std::string::npos || last == 0 ? std::string::npos : where.rfind(':', last - 1);
  if (mid == std::string::npos) return {0, 0};
  const auto line = parse_option<long>(where.substr(mid + 1, last - mid - 1));
  const auto column = parse_option<long>(where.substr(last + 1));
  return line && column ? std::pair<long, long>{*line, *column} : std::pair<long, long>{0, 0};
}

WrittenSpec read_written_spec(const YAML::Node& root, const std::string& path, const std::vector<std::string>& overrides,
                              std::vector<Diagnostic>& diags) {
  WrittenSpec spec;
  spec.path = path;
  Reader(path, diags).flatten(root, "", spec);
  check_printable(spec, diags);  // the file's values; --set's are checked as they are applied
  std::set<std::string> set_keys;
  for (const std::string& o : overrides) {
    const std::string key = o.substr(0, o.find('=')), shown = utf8_shortened(without_control_characters(valid_utf8(key)), 80);
    if (o.find('=') != std::string::npos && !set_keys.insert(key).second)
      diags.push_back({set_origin + shown, "--set " + shown + " is given twice; give each key once"});
    else
      apply_override(o, spec, diags);
  }
  return spec;
}

}  // namespace attn
