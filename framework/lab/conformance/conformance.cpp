#include "lab/conformance/conformance.hpp"

#include "attnlab/data/text.hpp"

namespace attn {
namespace {

using CheckOne = ConformanceRun (*)(const Registries&, const std::string&, const Options&, float);

CheckOne checks_of(PluginKind kind) {
  switch (kind) {
    case PluginKind::scoring: return check_scoring;
    case PluginKind::cell: return check_cell;
    case PluginKind::mode: return check_mode;
    case PluginKind::normalizer: return check_normalizer;
    case PluginKind::positional: return check_positional;
  }
  return check_scoring;
}

ConformanceHints hints_of(const Registries& r, PluginKind kind, const std::string& name) {
  switch (kind) {
    case PluginKind::scoring: return r.scoring.get(name).checks;
    case PluginKind::cell: return r.cells.get(name).checks;
    case PluginKind::mode: return r.modes.get(name).checks;
    case PluginKind::normalizer: return r.normalizers.get(name).checks;
    case PluginKind::positional: return r.positional.get(name).checks;
  }
  return {};
}

std::string set_text(const ConformanceHints::OptionSet& set) {
  std::string out;
  for (const auto& [key, value] : set) out += (out.empty() ? "" : ", ") + key + "=" + value;
  return out.empty() ? "defaults" : out;
}

}  // namespace

const char* kind_name(PluginKind kind) {
  switch (kind) {
    case PluginKind::scoring: return "scoring function";
    case PluginKind::cell: return "RNN cell";
    case PluginKind::mode: return "attention mode";
    case PluginKind::normalizer: return "normalizer";
    case PluginKind::positional: return "positional scheme";
  }
  return "plugin";
}

std::vector<ConformanceRun> check_plugin(const Registries& r, PluginKind kind, const std::string& name,
                                         const std::vector<ConformanceHints::OptionSet>& extra) {
  const ConformanceHints hints = hints_of(r, kind, name);
  std::vector<ConformanceHints::OptionSet> sets = {{}};
  sets.insert(sets.end(), hints.option_sets.begin(), hints.option_sets.end());
  sets.insert(sets.end(), extra.begin(), extra.end());
  std::vector<ConformanceRun> runs;
  for (const ConformanceHints::OptionSet& set : sets) {
    Options options;
    for (const auto& [key, value] : set) options.set(key, value, "option " + key);
    ConformanceRun run = checks_of(kind)(r, name, options, hints.fd_step);
    run.options = set_text(set);
    if (hints.fd_step > 0.0f) run.notes.push_back("finite-difference step " + option_text(hints.fd_step) + ", as the plugin declares");
    runs.push_back(std::move(run));
  }
  return runs;
}

std::string conformance_report(const ConformanceRun& run) {
  std::string out = run.plugin + ", options: " + run.options + ": ";
  out += run.failures.empty() ? "passed " + std::to_string(run.passed.size()) + " checks\n"
                              : std::to_string(run.failures.size()) + " of " + std::to_string(run.passed.size() + run.failures.size()) +
                                    " checks failed\n";
  for (const ConformanceFailure& f : run.failures)
    out += "  FAILED " + f.check + "\n    input:    " + f.input + "\n    expected: " + f.expected + "\n    got:      " + f.got + "\n";
  for (const std::string& note : run.notes) out += "  note: " + note + "\n";
  return without_control_characters(out, "\n");  // a plugin's name or an option value never reaches the terminal as an escape
}

}  // namespace attn
