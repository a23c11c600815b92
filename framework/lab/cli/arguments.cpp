#include "arguments.hpp"

#include "attnlab/options.hpp"
#include "attnlab/suggest.hpp"

namespace attn::cli {

Arguments::Arguments(const std::vector<std::string>& args, const std::set<std::string>& flags,
                     const std::set<std::string>& valued) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {  // the end of the options: what follows is positional, even "--force"
      positional_.insert(positional_.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      return;
    }
    const bool short_known = flags.count(a) || valued.count(a);  // e.g. -o
    if ((a.size() > 2 && a.compare(0, 2, "--") == 0) || short_known) {
      std::string name = a, inline_value;
      const auto eq = a.find('=');
      const bool has_inline = eq != std::string::npos && valued.count(a.substr(0, eq));
      if (has_inline) name = a.substr(0, eq), inline_value = a.substr(eq + 1);
      if (flags.count(name)) {
        flags_.insert(name);
      } else if (valued.count(name)) {
        if (has_inline) {
          values_[name].push_back(inline_value);
        } else {
          if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
          values_[name].push_back(args[++i]);
        }
      } else {
        std::vector<std::string> known(flags.begin(), flags.end());
        known.insert(known.end(), valued.begin(), valued.end());
        throw UsageError(unknown_name_message("option", name, known));
      }
    } else {
      positional_.push_back(a);
    }
  }
}

std::vector<std::string> Arguments::all(const std::string& name) const {
  const auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string Arguments::value(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  if (it->second.size() > 1)
    throw UsageError(name + " is given " + std::to_string(it->second.size()) + " times; it takes one value: give it once");
  return it->second.front();
}

int Arguments::integer(const std::string& name, int fallback, int min, int max) const {
  if (!has(name)) return fallback;
  const auto v = parse_option<int>(value(name, ""));
  if (!v || *v < min || *v > max)
    throw UsageError(name + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got '" +
                     value(name, "") + "'");
  return *v;
}

double Arguments::number(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  const auto v = parse_option<double>(value(name, ""));
  if (!v) throw UsageError(name + " must be a number, got '" + value(name, "") + "'");
  return *v;
}

}  // namespace attn::cli
