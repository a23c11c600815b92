#include "attnlab/options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/option_choice.hpp"
#include "attnlab/suggest.hpp"

namespace attn {

void Options::note_asked(const Asked& a) const {
  for (Asked& seen : asked_)
    if (seen.key == a.key) {
      if (a.type != "optional") seen = a;
      return;
    }
  asked_.push_back(a);
}

std::string option_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void Options::set(const std::string& key, const std::string& value, const std::string& where,
                  const std::string& key_where) {
  values_[key] = Value{value, where, key_where.empty() ? where : key_where};
}

std::string Options::key_where(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? "" : it->second.key_where;
}

std::string Options::where(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? "" : it->second.where;
}

std::vector<std::string> Options::keys() const {
  std::vector<std::string> out;
  for (const auto& kv : values_) out.push_back(kv.first);
  return out;
}

std::vector<std::string> Options::unread() const {
  std::vector<std::string> out;
  for (const auto& kv : values_)
    if (!read_.count(kv.first)) out.push_back(kv.first);
  return out;
}

void Options::require_all_read(const std::string& owner) const {
  for (const std::string& key : unread()) {
    const std::string head = key.substr(0, key.find('.'));
    if (head != key && read_.count(head))  // a mapping under an option that takes one value: 'd_model: {x: 3}'
      throw SpecError(key_where(key), "option '" + head + "' of " + owner + " takes one value, not a mapping: '" + key.substr(head.size() + 1) +
                                          "' is given under it; write '" + head + ": VALUE'");
    if (key.size() > 8 && key.compare(key.size() - 8, 8, "_options") == 0)  // 'positional_options: 3': a value where a section belongs
      throw SpecError(key_where(key), "'" + key + "' of " + owner + " is a section of options, not a value: write them under it (" + key +
                                          ": {base: 10}, or --set model." + key + ".base=10)");
    std::string msg = "unknown option '" + key + "' for " + owner;
    const std::string guess = closest_name(key, read_keys());
    if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
    msg += read_.empty() ? " (it takes no options)" : guess.empty() ? "; known: " : " known: ";
    std::size_t i = 0;
    for (const std::string& k : read_) msg += (i++ ? ", " : "") + k;
    throw SpecError(key_where(key), msg);
  }
}

namespace {

template <class T>
std::optional<T> parse_integer(const std::string& text) {
  // Decimal digits and a sign only: strtoll would also skip leading spaces (" 1" is not 1).
  if (text.empty() || text.find_first_not_of("0123456789+-") != std::string::npos) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno || *end != '\0') return std::nullopt;
  if (v < 0 ? v < static_cast<long long>(std::numeric_limits<T>::min())
            : static_cast<unsigned long long>(v) > static_cast<unsigned long long>(std::numeric_limits<T>::max()))
    return std::nullopt;
  return static_cast<T>(v);
}

template <class T>
std::optional<T> parse_real(const std::string& text) {
  // Decimal notation only: strtod would also take hex (0x10), leading spaces and "infinity".
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  if (std::fabs(v) > static_cast<double>(std::numeric_limits<T>::max())) return std::nullopt;  // a float: 1e39 (the cast is UB)
  const T t = static_cast<T>(v);
  if (t == 0 && v != 0) return std::nullopt;  // a float: 1e-50 would be 0
  return t;
}

// Plain digits, sign, point and exponent that strtod reads to the end: a number, even one its
// type cannot hold (1e400, 99999999999999999999).
bool is_number_text(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return *end == '\0';
}

}  // namespace

NumberProblem number_problem(const std::string& text, const NumberType& type) {
  if (!is_number_text(text)) return NumberProblem::not_a_number;
  if (type.integral && text.find_first_of(".eE") != std::string::npos) return NumberProblem::not_whole;
  const double v = std::strtod(text.c_str(), nullptr);  // 0 or a subnormal when it underflows
  if (!type.integral && std::fabs(v) < 1.0) return NumberProblem::too_near_zero;
  return NumberProblem::out_of_range;
}

std::string number_problem_words(NumberProblem problem, const NumberType& type) {
  if (problem == NumberProblem::too_near_zero)
    return std::string("is nonzero but nearer to 0 than ") + type.name + " can hold (about " + option_text(type.nearest_zero) +
           "): write 0 or a larger value";
  if (problem == NumberProblem::out_of_range)
    return std::string("is beyond what ") + type.name + " can hold (" + type.limits + ")";
  return "";
}

std::string unparsed_option_message(const std::string& key, const std::string& text, const char* type_name,
                                    const NumberType* type, const std::string& range) {
  const std::string option = "option '" + key + "' ";
  switch (type ? number_problem(text, *type) : NumberProblem::not_a_number) {
    case NumberProblem::not_a_number:
      break;
    case NumberProblem::not_whole:
      return option + "must be " + type_name + " (a whole number, no point or exponent), got " + text;
    case NumberProblem::too_near_zero:
      return option + "got " + text + ", which " + number_problem_words(NumberProblem::too_near_zero, *type);
    case NumberProblem::out_of_range:
      if (!range.empty()) return option + "must be in " + range + ", got " + text;
      return option + "got " + text + ", which " + number_problem_words(NumberProblem::out_of_range, *type);
  }
  return option + "must be " + type_name + ", got '" + text + "'";
}

template <> std::optional<bool> parse_option<bool>(const std::string& t) {
  if (t == "true" || t == "True" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "False" || t == "no" || t == "off") return false;
  return std::nullopt;
}
template <> std::optional<int> parse_option<int>(const std::string& t) { return parse_integer<int>(t); }
template <> std::optional<long> parse_option<long>(const std::string& t) { return parse_integer<long>(t); }
template <> std::optional<std::size_t> parse_option<std::size_t>(const std::string& t) { return parse_integer<std::size_t>(t); }
template <> std::optional<float> parse_option<float>(const std::string& t) { return parse_real<float>(t); }
template <> std::optional<double> parse_option<double>(const std::string& t) { return parse_real<double>(t); }
template <> std::optional<std::string> parse_option<std::string>(const std::string& t) { return t; }

template <> const char* option_type_name<bool>() { return "a boolean (true/false)"; }
template <> const char* option_type_name<int>() { return "an integer"; }
template <> const char* option_type_name<long>() { return "an integer"; }
template <> const char* option_type_name<std::size_t>() { return "a non-negative integer"; }
template <> const char* option_type_name<float>() { return "a number"; }
template <> const char* option_type_name<double>() { return "a number"; }
template <> const char* option_type_name<std::string>() { return "a string"; }

std::string option_choice(const Options& o, const std::string& key, const std::string& fallback,
                          const std::vector<std::string>& allowed) {
  const std::string v = o.get<std::string>(key, fallback);
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "'" : ", '") + a + "'";
  throw SpecError(o.where(key), "option '" + key + "' must be one of " + list + "; got '" + v + "'");
}

}  // namespace attn
