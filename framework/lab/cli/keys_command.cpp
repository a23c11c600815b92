// `attnlab keys [--markdown] [--plugin PATH]...`: every key a spec takes, from the spec schema,
// with its type, default, range and meaning (--markdown: the table of docs/spec.md); then, in
// text, the options each attention plugin reads, built-ins and loaded ones alike.
// `attnlab keys SPEC.yaml [--set KEY=VALUE]...`: the options the spec's datasets and models read.
#include <cstdio>

#include "arguments.hpp"
#include "attnlab/attnlab.hpp"
#include "attnlab/plugin_loader.hpp"
#include "lab/builtins.hpp"
#include "lab/runner/runner.hpp"
#include "lab/spec/schema.hpp"
#include "plugin_at_small_sizes.hpp"

namespace attn::cli {
namespace {

// One line per plugin of a kind: the options it reads when built with none given (each with its
// type, default and range), or why it could not be built at small sizes.
std::string plugin_options(const Registries& r, PluginKind kind, const std::vector<std::string>& names, const std::string& title) {
  std::string out = title + "\n";
  for (const std::string& name : names) {
    const Options none;
    ParamStore store;
    Rng rng(1);
    std::string line;
    try {
      build_at_small_sizes(r, kind, name, none, ParamScope(store, rng, "probe"));
      for (const Options::Asked& a : none.asked())
        line += (line.empty() ? "" : "; ") + a.key + " (" + a.type + ", default " + a.fallback + (a.range.empty() ? "" : ", " + a.range) + ")";
    } catch (const std::exception& e) {
      line = "(not built with the probe's sizes: " + std::string(e.what()) + ")";
    }
    out += "  " + name + std::string(name.size() < 20 ? 20 - name.size() : 1, ' ') + (line.empty() ? "no options" : line) + "\n";
  }
  return out;
}

std::string all_plugin_options(const Registries& r) {
  return "\nThe options of each attention plugin, as it reads them when built with none given, for\n"
         "queries, keys and values of width 8 (positions: 2 heads of width 4), so a default that follows\n"
         "a size shows that size. A model takes them under scoring_options, cell_options, mode_options,\n"
         "normalizer_options or positional_options. Options that only another option turns on:\n"
         "docs/plugins.md. A dataset's and a model's options: attnlab keys SPEC.yaml.\n" +
         plugin_options(r, PluginKind::scoring, r.scoring.names(), "scoring functions") +
         plugin_options(r, PluginKind::cell, r.cells.names(), "RNN cells") +
         plugin_options(r, PluginKind::mode, r.modes.names(), "attention modes") +
         plugin_options(r, PluginKind::normalizer, r.normalizers.names(), "normalizers") +
         plugin_options(r, PluginKind::positional, r.positional.names(), "positional schemes");
}

int list_keys(const std::vector<std::string>& args) {
  const Arguments a(args, {"--markdown"}, {"--plugin", "--set"});
  if (a.positional().size() > 1) throw UsageError("unexpected argument '" + a.positional()[1] + "': give at most one spec");
  if (a.positional().size() == 1) {
    if (a.flag("--markdown")) throw UsageError("--markdown prints the schema's table; it takes no spec");
    RunnerOptions options;
    options.overrides = a.all("--set");
    options.plugins = a.all("--plugin");
    return list_spec_options(a.positional()[0], options);
  }
  if (a.has("--set")) throw UsageError("--set changes a spec: give the spec (attnlab keys SPEC.yaml --set KEY=VALUE)");
  if (a.flag("--markdown")) {
    std::printf("%s", spec_keys_table(true).c_str());
    return 0;
  }
  Registries registries;
  register_builtins(registries);
  for (const std::string& path : a.all("--plugin")) load_plugin(path, registries);
  std::printf("%s%s", spec_keys_table(false).c_str(), all_plugin_options(registries).c_str());
  return 0;
}

}  // namespace

Command keys_command() {
  return {"keys", "list every spec key and plugin option; with a spec, its dataset's and model's options",
          "usage: attnlab keys [--markdown] [--plugin PATH]...\n"
          "       attnlab keys SPEC.yaml [--set KEY=VALUE]... [--plugin PATH]...\n"
          "  Lists the keys of the spec schema: type, default, range, meaning. Then the options of\n"
          "  each scoring function, RNN cell, attention mode, normalizer and positional scheme,\n"
          "  built-in or loaded with --plugin, as each reads them: type, default, range.\n"
          "  With a spec: the options its datasets and models read (dataset.*, model.*), each with\n"
          "  its type, default and range, and the value the spec gives it.\n"
          "  --markdown   print the table of docs/spec.md (the schema's keys only)",
          list_keys};
}

}  // namespace attn::cli
