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
#include <limits>
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
  bool has(const std::string& key) const {
    note_asked({key, "optional", "none", ""});
    return values_.count(key) > 0;
  }

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
  // What each get() (or has()) asked for, in the order asked: `attnlab keys` lists a plugin's
  // options from the options it reads when built.
  struct Asked {
    std::string key, type, fallback, range;  // range "" when the option has none
  };
  const std::vector<Asked>& asked() const { return asked_; }

 private:
  // get()'s lookup and parse; `range` goes into the message for a number too large for T.
  template <class T>
  T parsed(const std::string& key, T fallback, const std::string& range) const;
  struct Value {
    std::string text, where, key_where;
  };
  std::map<std::string, Value> values_;
  mutable std::set<std::string> read_;
  mutable std::vector<Asked> asked_;
  // Adds an option to asked_, or completes the entry has() made with what get() knows.
  void note_asked(const Asked& a) const;
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

// What a number type holds, for messages: its name and limits.
struct NumberType {
  const char* name;  // "a 32-bit float"
  bool integral;
  std::string limits;   // "[-2147483648, 2147483647]", "at most about 3.40282e+38 in size"
  double nearest_zero;  // the smallest positive value (0 for integers)
};
template <class T>
NumberType number_type() {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  using L = std::numeric_limits<T>;
  const char* name = std::is_same_v<T, float> ? "a 32-bit float" : std::is_floating_point_v<T> ? "a double"
                     : std::is_unsigned_v<T>  ? "a non-negative integer of 64 bits" : sizeof(T) == 4 ? "a 32-bit integer"
                                                                                        : "a 64-bit integer";
  if constexpr (std::is_integral_v<T>)
    return {name, true, "[" + std::to_string(L::lowest()) + ", " + std::to_string(L::max()) + "]", 0.0};
  else
    return {name, false, "at most about " + option_text(static_cast<double>(L::max())) + " in size",
            static_cast<double>(L::denorm_min())};
}

// Why `text` is no value of `type` (when parse_option refused it, or a double does not fit a
// float): not written as a number at all; a point or exponent where a whole number goes (2.5,
// 1e3); nonzero but nearer to 0 than the type holds (1e-400); beyond its range (1e400; 2^63 or
// -1 for an unsigned).
enum class NumberProblem { not_a_number, not_whole, too_near_zero, out_of_range };
NumberProblem number_problem(const std::string& text, const NumberType& type);
// The words for too_near_zero and out_of_range, after the value: "is nonzero but nearer to 0
// than a 32-bit float can hold (about 1.4e-45): write 0 or a larger value"; "" for the others.
std::string number_problem_words(NumberProblem problem, const NumberType& type);

// The message for an option whose text parse_option<T> refused (`type` null when T is not a
// number); `range` is "[min, max]" when the option has bounds, said for a number out of range.
std::string unparsed_option_message(const std::string& key, const std::string& text, const char* type_name,
                                    const NumberType* type, const std::string& range);

// A default as a spec would write it: 32, 0.5, true, "text".
template <class T>
std::string option_value_text(const T& v) {
  if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
  else if constexpr (std::is_same_v<T, std::string>) return "\"" + v + "\"";
  else if constexpr (std::is_integral_v<T>) return std::to_string(v);
  else return option_text(static_cast<double>(v));
}

template <class T>
T Options::parsed(const std::string& key, T fallback, const std::string& range) const {
  if (read_.insert(key).second) note_asked({key, option_type_name<T>(), option_value_text(fallback), range});
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const auto v = parse_option<T>(it->second.text);
  if (!v) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      const NumberType type = number_type<T>();
      throw SpecError(it->second.where, unparsed_option_message(key, it->second.text, option_type_name<T>(), &type, range));
    }
    throw SpecError(it->second.where, unparsed_option_message(key, it->second.text, option_type_name<T>(), nullptr, range));
  }
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
