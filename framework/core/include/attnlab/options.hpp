// Options of a plugin, as written in a spec (YAML) or on the command line.
//
// A plugin reads each of its options once, with a default and optionally a range:
//     hidden_ = opt.get<int>("hidden", 32, 1, 65536);
// Every value remembers where it was written ("spec.yaml:12:7"), so a bad value is reported
// there, naming the option. Options the plugin never read are reported by the framework
// after construction as unknown, with the closest known option.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "attnlab/errors.hpp"

namespace attn {

class Options {
 public:
  Options() = default;
  // A value as text (YAML scalar), with where it came from for error messages: the value's
  // place (for bad values) and the key's (for unknown keys; the value's when not given).
  void set(const std::string& key, const std::string& value, const std::string& where = "",
           const std::string& key_where = "");
  bool has(const std::string& key) const { return values_.count(key) > 0; }

  // The option's value, or `fallback` when absent. Throws SpecError (naming the option and
  // its location) when the text is not a T or lies outside [min, max].
  template <class T>
  T get(const std::string& key, T fallback) const;
  template <class T>
  T get(const std::string& key, T fallback, T min, T max) const;

  // Keys given but never read by get(): the framework reports them as unknown options.
  std::vector<std::string> unread() const;
  std::vector<std::string> read_keys() const { return {read_.begin(), read_.end()}; }
  // Throws SpecError for the first unread key of `owner` (e.g. "scoring function 'additive'"),
  // with the closest read key as a suggestion.
  void require_all_read(const std::string& owner) const;
  std::string where(const std::string& key) const;
  std::string key_where(const std::string& key) const;
  // Every key (read or not), for building sub-options.
  std::vector<std::string> keys() const;
  const std::string& text(const std::string& key) const { return values_.at(key).text; }
  void mark_read(const std::string& key) const { read_.insert(key); }

 private:
  // get()'s lookup and parse; `range` goes into the message for a number too large for T.
  template <class T>
  T parsed(const std::string& key, T fallback, const std::string& range) const;
  struct Value {
    std::string text, where, key_where;
  };
  std::map<std::string, Value> values_;
  mutable std::set<std::string> read_;
};

// Parsers behind get<T>; specialised for bool, int, long, std::size_t, float, double, std::string.
template <class T>
std::optional<T> parse_option(const std::string& text);
template <class T>
const char* option_type_name();
#define ATTNLAB_OPTION_TYPE(T)                                           \
  template <> std::optional<T> parse_option<T>(const std::string& text); \
  template <> const char* option_type_name<T>();
ATTNLAB_OPTION_TYPE(bool)
ATTNLAB_OPTION_TYPE(int)
ATTNLAB_OPTION_TYPE(long)
ATTNLAB_OPTION_TYPE(std::size_t)
ATTNLAB_OPTION_TYPE(float)
ATTNLAB_OPTION_TYPE(double)
ATTNLAB_OPTION_TYPE(std::string)
#undef ATTNLAB_OPTION_TYPE

// A number as a person writes it (1e-06, 0.5, 32).
std::string option_text(double v);

// Why parse_option<T> refused `text` for a numeric T (integral or not): not written as a number
// at all; a point or exponent where a whole number goes (2.5, 1e3); nonzero but too small for T
// (1e-400); too large for T (1e400, 2^63 for a long).
enum class NumberProblem { not_a_number, not_whole, too_small, too_large };
NumberProblem number_problem(const std::string& text, bool integral);

// The message for an option whose text parse_option<T> refused; `range` is "[min, max]" when the
// option has bounds ("" when not), said for a number too large for T.
std::string unparsed_option_message(const std::string& key, const std::string& text, const char* type_name, bool numeric,
                                    bool integral, const std::string& range);

template <class T>
T Options::parsed(const std::string& key, T fallback, const std::string& range) const {
  read_.insert(key);
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const auto v = parse_option<T>(it->second.text);
  constexpr bool numeric = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
  if (!v)
    throw SpecError(it->second.where,
                    unparsed_option_message(key, it->second.text, option_type_name<T>(), numeric, std::is_integral_v<T>, range));
  return *v;
}

template <class T>
T Options::get(const std::string& key, T fallback) const {
  return parsed<T>(key, fallback, "");
}

template <class T>
T Options::get(const std::string& key, T fallback, T min, T max) const {
  const auto text = [](T x) {  // integers as integers (10000000, not 1e+07)
    if constexpr (std::is_integral_v<T>) return std::to_string(x);
    else return option_text(static_cast<double>(x));
  };
  const std::string range = "[" + text(min) + ", " + text(max) + "]";
  const T v = parsed<T>(key, fallback, range);
  if (v < min || v > max) throw SpecError(where(key), "option '" + key + "' must be in " + range + ", got " + text(v));
  return v;
}

}  // namespace attn
