// `attnlab new-plugin KIND NAME [--dir DIR]`: a plugin of one of the five attention kinds,
// started from that kind's example (plugins/examples/, compiled in: example_sources.hpp) with
// its names changed, plus its meson build, a spec that compares it with a built-in, and the
// commands that build, load, run and check it.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <utility>

#include "arguments.hpp"
#include "attnlab/data/text.hpp"
#include "lab/builtins.hpp"
#include "lab/cli/example_sources.hpp"

namespace attn::cli {
namespace {

struct PluginTemplate {
  const char* kind;
  const char* source;         // the example's C++ source
  const char* example;        // its registered name
  const char* example_class;  // its class
  const char* page;           // its walkthrough in docs/
  const char* model;          // the spec's model section, with NAME where the plugin goes
  const char* sweep;          // the spec's sweep: a built-in against NAME
};

const PluginTemplate kinds[] = {
    {"scoring", example_scoring_source, "cosine", "Cosine", "writing-a-scoring-plugin.md",
     "  name: seq2seq\n  embed: 32\n  hidden: 32\n  attention:\n    scoring: NAME\n", "  model.attention.scoring: [additive, NAME]\n"},
    {"cell", example_cell_source, "min_gru", "MinGru", "writing-a-cell-plugin.md",
     "  name: seq2seq\n  embed: 32\n  hidden: 32\n  cell: NAME\n", "  model.cell: [gru, NAME]\n"},
    {"mode", example_mode_source, "shared_qk", "SharedQk", "writing-a-mode-plugin.md",
     "  name: seq2seq\n  embed: 32\n  hidden: 32\n  attention:\n    scoring: dot\n    mode: NAME\n", "  model.attention.mode: [qvv, NAME]\n"},
    {"normalizer", example_normalizer_source, "learned_temperature", "LearnedTemperature", "writing-a-normalizer-plugin.md",
     "  name: seq2seq\n  embed: 32\n  hidden: 32\n  attention:\n    normalizer: NAME\n",
     "  model.attention.normalizer: [softmax, NAME]\n"},
    {"positional", example_positional_source, "xpos", "XPos", "writing-a-positional-plugin.md",
     "  name: transformer\n  d_model: 32\n  heads: 2\n  layers: 2\n  ffn_hidden: 64\n  positional: NAME\n",
     "  model.positional: [sinusoidal, NAME]\n"},
};

// "my_score" -> "MyScore": the plugin's class.
std::string class_name(const std::string& name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c != '_') out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = c == '_';
  }
  return out;
}

// `what` as a whole word (or, quoted, as a whole string) replaced by `with`.
std::string replaced(const std::string& text, const std::string& what, const std::string& with) {
  const std::string bound = what.front() == '"' ? "" : "\\b";
  return std::regex_replace(text, std::regex(bound + what + bound), with);
}

// The example's code with its names changed, after a header that says where it came from: its
// class, its registered name, and the name in the messages it throws (its description keeps
// saying what the code computes until the author changes both).
std::string plugin_source(const PluginTemplate& k, const std::string& name) {
  const std::string source = k.source;
  std::istringstream lines(source.substr(source.find("#include")));  // (the example's own header describes the example)
  std::string code;
  for (std::string line; std::getline(lines, line);) {
    const bool message = line.find("throw ") != std::string::npos || line.find("require_") != std::string::npos;
    line = message ? replaced(line, k.example, name) : replaced(line, "\"" + std::string(k.example) + "\"", "\"" + name + "\"");
    code += replaced(line, k.example_class, class_name(name)) + "\n";
  }
  code = std::regex_replace(code, std::regex("\\(example outside plugin\\)"), "(started from the example " + std::string(k.example) + ")");
  return "// " + name + ": an attention " + k.kind + " plugin for attnlab, started by `attnlab new-plugin " + k.kind + " " + name +
         "`\n// from the example " + k.example + " (plugins/examples/; the walkthrough: docs/" + k.page +
         ").\n// Write its math here, then change the code below to compute it.\n// Build: meson setup build && ninja -C build; or\n"
         "//   g++ -std=c++17 -O2 -shared -fPIC " + name + ".cpp -o build/lib" + name + ".so $(pkg-config --cflags --libs attnlab)\n" + code;
}

std::string meson_build(const std::string& name) {
  return "# The " + name + " plugin, built against an installed attnlab (pkg-config attnlab; for a build tree,\n"
         "# PKG_CONFIG_PATH=ATTNLAB_BUILD/meson-uninstalled). Its flags must be attnlab's: the dependency\n"
         "# carries them. meson setup build && ninja -C build writes build/lib" + name + ".so.\n"
         "project('" + name + "', 'cpp', default_options : ['cpp_std=c++17', 'buildtype=release'])\n"
         "shared_module('" + name + "', '" + name + ".cpp', dependencies : dependency('attnlab'), gnu_symbol_visibility : 'hidden')\n";
}

std::string spec(const PluginTemplate& k, const std::string& name) {
  const auto with_name = [&](const char* text) { return replaced(text, "NAME", name); };
  return "# " + name + " against a built-in " + k.kind + " on the reverse task: small, a few seconds.\n"
         "#   attnlab run " + name + ".yaml   then   attnlab compare " + name + ".h5\n"
         "name: " + name + "\nseed: 1\nplugins: [build/lib" + name + ".so]   # relative to this file\n"
         "dataset:\n  name: sequence_task\n  task: reverse\n  num_train: 1000\n  num_valid: 100\n  num_steps: 10\n"
         "model:\n" + with_name(k.model) + "training:\n  lr: 0.005\n  epochs: 10\n  batch_size: 64\n  clip: 1.0\n"
         "record:\n  attention: [0]\nsweep:\n" + with_name(k.sweep) + "  seed: [1, 2]\n";
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("could not write " + path.string());
}

// A name a plugin of kind `k` can have: one attnlab would load (not a built-in's of that kind).
void check_name(const PluginTemplate& k, const std::string& name) {
  const std::string shown = "'" + utf8_shortened(without_control_characters(name), 40) + "'";
  if (name.size() > 64) throw UsageError(shown + " is " + std::to_string(name.size()) + " bytes long: a plugin's name has at most 64");
  if (!std::regex_match(name, std::regex("[a-z][a-z0-9_]*")))
    throw UsageError(shown + " cannot name a plugin: lower-case letters, digits and '_', starting with a letter");
  Registries builtins;
  register_builtins(builtins);
  const std::string kind = k.kind;
  const bool taken = kind == "scoring" ? builtins.scoring.contains(name) : kind == "cell" ? builtins.cells.contains(name)
                   : kind == "mode" ? builtins.modes.contains(name) : kind == "normalizer" ? builtins.normalizers.contains(name)
                   : builtins.positional.contains(name);
  if (taken)
    throw UsageError(shown + " is the name of a built-in " + kind + " plugin: a library registering it again would not load "
                     "(attnlab plugins lists the names taken); choose another");
}

int new_plugin(const std::vector<std::string>& args) {
  const Arguments a(args, {}, {"--dir"});
  if (a.positional().size() != 2) throw UsageError("expected the plugin's kind and its name");
  const std::string& kind = a.positional()[0];
  const std::string& name = a.positional()[1];
  const PluginTemplate* k = nullptr;
  for (const PluginTemplate& candidate : kinds)
    if (kind == candidate.kind) k = &candidate;
  if (!k) throw UsageError("no plugin kind '" + kind + "': scoring, cell, mode, normalizer or positional");
  check_name(*k, name);
  if (a.has("--dir") && a.value("--dir", "").empty()) throw UsageError("--dir is empty: name the directory to write the plugin into");
  const std::filesystem::path dir = a.value("--dir", name);
  const std::string shown_dir = utf8_shortened(without_control_characters(dir.string()), 200);
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) throw UsageError("'" + shown_dir + "' already exists: name a new directory with --dir");
  if (!std::filesystem::create_directories(dir, ec) || ec)
    throw UsageError("could not make the directory '" + shown_dir + "' (" + ec.message() + "): choose a place you can write with --dir");
  write_file(dir / (name + ".cpp"), plugin_source(*k, name));
  write_file(dir / "meson.build", meson_build(name));
  write_file(dir / (name + ".yaml"), spec(*k, name));
  const std::string d = dir.string(), so = "build/lib" + name + ".so";
  std::printf("wrote %s/%s.cpp: the %s plugin '%s', started from the example %s (docs/%s)\n", d.c_str(), name.c_str(), k->kind,
              name.c_str(), k->example, k->page);
  std::printf("wrote %s/meson.build: its build against the installed attnlab (pkg-config attnlab)\n", d.c_str());
  std::printf("wrote %s/%s.yaml: a spec that compares it with a built-in on the reverse task\n", d.c_str(), name.c_str());
  const std::pair<std::string, std::string> next[] = {
      {"meson setup build && ninja -C build", "writes " + so},
      {"attnlab plugins --plugin " + so, "loads it: '" + name + "' is listed"},
      {"attnlab run " + name + ".yaml", "trains with it and with the built-in"},
      {"attnlab check " + so, "the conformance suite: does it do what every plugin must?"}};
  std::printf("next, in %s/:\n", d.c_str());
  for (const auto& [command, what] : next) std::printf("  %-58s # %s\n", command.c_str(), what.c_str());
  return 0;
}

}  // namespace

Command new_plugin_command() {
  return {"new-plugin", "write a plugin to start from: its source, its meson build and a spec that uses it",
          "usage: attnlab new-plugin scoring|cell|mode|normalizer|positional NAME [--dir DIR]\n"
          "  Writes DIR (default NAME; it must not exist) with NAME.cpp, the kind's example plugin\n"
          "  (plugins/examples/) renamed to NAME, which compiles as it is; meson.build, which builds\n"
          "  it against the installed attnlab; and NAME.yaml, a small spec that compares it with a\n"
          "  built-in. Then prints the commands that build, load, run and check it.\n"
          "  exit codes: 0 written; 2 refused (the reason on one line), nothing written",
          new_plugin};
}

}  // namespace attn::cli
