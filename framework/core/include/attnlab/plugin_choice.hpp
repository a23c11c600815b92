// A plugin picked by name, with its options (as a spec writes it: `scoring: additive`,
// `scoring_options: {hidden: 64}`), and its construction from a registry.
#pragma once

#include <memory>
#include <string>

#include "attnlab/options.hpp"
#include "attnlab/plugins/plugin_call.hpp"
#include "attnlab/registry.hpp"

namespace attn {

struct PluginChoice {
  std::string name;
  Options options;
  std::string where = {};  // where the name was written (file:line:col), for errors (a default: {name, options} is complete)
};

// The keys of `options` under "prefix." (the prefix removed); marks them read in `options`.
Options sub_options(const Options& options, const std::string& prefix);

// The plugin named by option `key` (default `fallback`), with its options from `key`_options.*.
PluginChoice plugin_choice(const Options& options, const std::string& key, const std::string& fallback);

// Constructs the plugin `choice` names and reports options it did not read as unknown (with a
// suggestion). Every failure is a SpecError at the plugin name's place (file:line:col), so
// `attnlab validate` reports it before anything runs: an unknown name (with the known ones), or
// an exception from the constructor (an outside plugin's is prefixed with the plugin and its
// library). Without a place (a default the spec did not write), a built-in's exception passes on.
template <class Base, class Args>
std::shared_ptr<Base> make_plugin(const Registry<Base, Args>& registry, const PluginChoice& choice,
                                  const Args& args) {
  std::shared_ptr<Base> made;
  const std::string who = registry.contains(choice.name) ? registry.describe(choice.name) : choice.name;
  try {
    const InPluginCall marker(who.c_str(), "its constructor");
    made = registry.create(choice.name, args);
  } catch (const RegistryError& e) {
    throw SpecError(choice.where, e.what());
  } catch (const SpecError&) {
    throw;
  } catch (const MemoryLimitError&) {  // the lab names the spec key responsible
    throw;
  } catch (const std::exception& e) {
    const bool outside = static_cast<bool>(registry.get(choice.name).library);
    if (!outside && choice.where.empty()) throw;
    throw SpecError(choice.where, outside ? who + " threw while being constructed: " + e.what() : std::string(e.what()));
  } catch (...) {
    throw SpecError(choice.where, who + " threw something that is not a std::exception while being constructed");
  }
  choice.options.require_all_read(registry.kind() + " '" + choice.name + "'");
  return made;
}

}  // namespace attn
