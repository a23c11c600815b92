// `attnlab check PLUGIN.so [--section NAME] [--option KEY=VALUE]...`: the conformance suite
// (lab/conformance/conformance.hpp) run on every scoring function, RNN cell, attention mode,
// normalizer and positional scheme a plugin library registers; no test build needed.
#include <cstdio>

#include "arguments.hpp"
#include "attnlab/attnlab.hpp"
#include "attnlab/data/text.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/plugin_loader.hpp"
#include "attnlab/plugins/plugin_call.hpp"
#include "lab/builtins.hpp"
#include "lab/conformance/conformance.hpp"
#include "plugin_at_small_sizes.hpp"

namespace attn::cli {
namespace {

struct Registered {
  PluginKind kind;
  std::string name;
};

template <class Kind>
void loaded_from_library(const Kind& registry, PluginKind kind, std::vector<Registered>& out) {
  for (const auto& [name, entry] : registry.entries())
    if (entry.library) out.push_back({kind, name});
}

// What the library registered of the five attention kinds (built-ins have no library).
std::vector<Registered> attention_plugins(const Registries& r) {
  std::vector<Registered> out;
  loaded_from_library(r.scoring, PluginKind::scoring, out);
  loaded_from_library(r.cells, PluginKind::cell, out);
  loaded_from_library(r.modes, PluginKind::mode, out);
  loaded_from_library(r.normalizers, PluginKind::normalizer, out);
  loaded_from_library(r.positional, PluginKind::positional, out);
  return out;
}

// --option KEY=VALUE values as one option set.
ConformanceHints::OptionSet option_set(const std::vector<std::string>& given) {
  ConformanceHints::OptionSet set;
  for (const std::string& text : given) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--option takes KEY=VALUE, an option of the plugin and its value (e.g. --option window=2), not '" + text + "'");
    for (const auto& [key, value] : set)
      if (key == text.substr(0, eq)) throw UsageError("--option " + key + " is given twice; give each option once (one option set)");
    set.emplace_back(text.substr(0, eq), text.substr(eq + 1));
  }
  return set;
}

std::vector<Registered> chosen(const std::vector<Registered>& all, const Arguments& a, const std::string& path) {
  if (!a.has("--section")) return all;
  const std::string wanted = a.value("--section", "");
  std::string known;
  for (const Registered& p : all) {
    if (p.name == wanted) return {p};
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw UsageError("--section " + wanted + ": '" + path + "' registers no plugin of that name; it registers " + known);
}

// --option values the plugin takes: built with them at small sizes, it reads every key and refuses
// no value; a UsageError (exit 2) otherwise, before any check runs.
void check_given_options(const Registries& r, const Registered& p, const ConformanceHints::OptionSet& set) {
  if (set.empty()) return;
  Options o;
  for (const auto& [key, value] : set) o.set(key, value, "--option " + key + "=" + value);
  ParamStore store;
  Rng rng(1);
  const ParamScope scope(store, rng, "option_check");
  try {
    build_at_small_sizes(r, p.kind, p.name, o, scope);
    o.require_all_read(std::string(kind_name(p.kind)) + " '" + without_control_characters(p.name) + "'");
  } catch (const PluginFault&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(std::string("the plugin does not take these options: ") + e.what());
  }
}

// The suite's runs on one plugin. Its code runs marked as the plugin's (plugin_call.hpp), so a
// crash, abort() or exit() in it is reported as the plugin's, by name; something thrown that is no
// std::exception is named too.
std::vector<ConformanceRun> checked(const Registries& registries, const Registered& p, const std::string& path,
                                    const ConformanceHints::OptionSet& extra) {
  const std::string who = std::string(kind_name(p.kind)) + " '" + without_control_characters(p.name) + "' (plugin " + path + ")";
  const InPluginCall marker(who.c_str(), "a call of the conformance suite");
  try {
    check_given_options(registries, p, extra);
    return check_plugin(registries, p.kind, p.name, extra.empty() ? std::vector<ConformanceHints::OptionSet>{}
                                                                  : std::vector<ConformanceHints::OptionSet>{extra});
  } catch (const std::exception&) {
    throw;
  } catch (...) {
    throw PluginFault(who + " threw something that is not a std::exception during the conformance suite; a plugin reports a "
                            "problem with a std::exception (std::invalid_argument, attn::SpecError)");
  }
}

int check_library(const std::vector<std::string>& args) {
  const Arguments a(args, {}, {"--section", "--option"});
  if (a.positional().size() != 1) throw UsageError("expected exactly one plugin library (PLUGIN.so)");
  const std::string& path = a.positional()[0];
  const ConformanceHints::OptionSet extra = option_set(a.all("--option"));
  Registries registries;
  register_builtins(registries);
  load_plugin(path, registries);
  const std::vector<Registered> found = attention_plugins(registries);
  if (found.empty())
    throw UsageError("'" + path + "' registers no scoring function, RNN cell, attention mode, normalizer or positional scheme: "
                     "nothing for the conformance suite (models, datasets and optimizers are checked by the runs that use them)");
  std::size_t runs = 0, failed = 0;
  for (const Registered& p : chosen(found, a, path))
    for (const ConformanceRun& r : checked(registries, p, path, extra)) {
      std::printf("%s", conformance_report(r).c_str());
      ++runs;
      failed += r.failures.empty() ? 0 : 1;
    }
  std::printf("%zu of %zu checked option sets passed\n", runs - failed, runs);
  return failed ? 1 : 0;
}

}  // namespace

Command check_command() {
  return {"check", "run the conformance suite on a plugin library: every plugin it registers",
          "usage: attnlab check PLUGIN.so [--section NAME] [--option KEY=VALUE]...\n"
          "  Checks every scoring function, RNN cell, attention mode, normalizer and positional\n"
          "  scheme the library registers, with its default options and each option set it declares\n"
          "  (docs/plugins.md, \"Conformance\"): shapes, masked keys, batch independence, declared\n"
          "  traits, finite-difference gradients. A failure names the plugin, the check, the input\n"
          "  and what a correct plugin gives.\n"
          "  --section NAME     only the plugin registered as NAME\n"
          "  --option KEY=VALUE also check with this option (repeatable: one more option set)\n"
          "  exit codes: 0 every check passed, 1 a check failed, 2 bad command line or a plugin that\n"
          "  does not load",
          check_library};
}

}  // namespace attn::cli
