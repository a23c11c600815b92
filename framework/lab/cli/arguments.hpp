// A small command-line parser shared by the commands: flags (--force), options with a value
// (--threads 2, --set k=v, repeatable), and positional arguments; after "--" every argument is
// positional (a file named "--force", a sentence "-x"). Unknown flags are usage errors.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "command.hpp"

namespace attn::cli {

class Arguments {
 public:
  Arguments(const std::vector<std::string>& args, const std::set<std::string>& flags,
            const std::set<std::string>& valued);
  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  std::vector<std::string> all(const std::string& name) const;  // a repeatable option's values
  // A single-value option's value (or fallback); an option given twice is a UsageError.
  std::string value(const std::string& name, const std::string& fallback) const;
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  int integer(const std::string& name, int fallback, int min, int max) const;
  double number(const std::string& name, double fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::set<std::string> flags_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

}  // namespace attn::cli
