// What a plugin asks of the conformance suite (`attnlab check`) beyond its defaults.
//
// A plugin class may declare them with a static member function, which Registry::add finds:
//     static attn::ConformanceHints conformance_hints() {
//       return {{{{"window", "2"}}, {{"window", "2"}, {"causal", "true"}}},  // checked with these too
//               3e-4f};                                                      // a kink: a smaller step
//     }
// The suite checks the plugin with its defaults, then with each option set; `fd_step` replaces
// the finite-difference step of its gradient checks (0: the suite's own, 1e-2, then 1e-3).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace attn {

struct ConformanceHints {
  using OptionSet = std::vector<std::pair<std::string, std::string>>;  // key, value as a spec writes it
  std::vector<OptionSet> option_sets;
  float fd_step = 0.0f;
};

// Whether T declares `static ConformanceHints conformance_hints()`.
template <class T, class = void>
struct declares_conformance_hints : std::false_type {};
template <class T>
struct declares_conformance_hints<T, std::void_t<decltype(T::conformance_hints())>> : std::true_type {};

}  // namespace attn
