// The `--set` values a fuzzed spec carries: each line that starts with "#set " (a YAML comment,
// so the spec reads the same) gives one KEY=VALUE, after "training.epochs=1", which keeps every
// run short. The mutations of a seed's `#set` lines reach the code that applies `--set` to
// every key, the new ones (positional, language-model, evaluation) among them.
#pragma once

#include <sstream>
#include <string>
#include <vector>

inline std::vector<std::string> fuzzed_set_values(const std::string& text) {
  std::vector<std::string> values{"training.epochs=1"};
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#set ", 0) == 0) values.push_back(line.substr(5));
  return values;
}
