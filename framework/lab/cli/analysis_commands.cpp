// `attnlab inspect`, `attnlab plot` and `attnlab report`: looking at a results file.
#include "attnlab/data/text.hpp"
#include "attnlab/models/attention_rollout.hpp"
#include "attnlab/file_kind.hpp"
#include <cstring>
#include <cerrno>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <signal.h>
#include <sys/wait.h>

#include "arguments.hpp"
#include "attnlab/models/attention_relevance.hpp"
#include "trained_run.hpp"
#include "lab/analysis/inspect.hpp"
#include "lab/analysis/pictures.hpp"
#include "lab/analysis/report.hpp"
#include "lab/files/output_claim.hpp"
#include "lab/files/whole_file.hpp"
#include "lab/results/results_format.hpp"

namespace attn::cli {
namespace {

const std::string& results_path(const Arguments& a) {
  if (a.positional().size() != 1) throw UsageError("expected exactly one results file");
  return a.positional()[0];
}

// Refuses an output that exists and is not a file (a directory, a FIFO, a device: it is never
// opened or replaced), whose directory cannot take it, or that is the results file read.
void check_output(const std::string& path, const std::string& results) {
  if (const std::string problem = output_file_problem(path, "-o"); !problem.empty()) throw UsageError(problem);
  if (const std::string clash = output_is_input(path, {{results, "the results file"}}); !clash.empty()) throw UsageError(clash);
}

// Writes `text` to `path` whole (whole_file.hpp), after check_output.
void write_file(const std::string& path, const std::string& text, const std::string& results) {
  check_output(path, results);
  write_whole_file(path, text);
}

// Where Debian's rsvg-convert (librsvg2-bin), which renders the PNGs, is on $PATH ("" if not).
std::string rsvg_convert_path() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((dir + "/rsvg-convert").c_str(), X_OK) == 0) return dir + "/rsvg-convert";
  return "";
}

// A path no program takes for an option.
std::string not_an_option(const std::string& path) { return path.rfind('-', 0) == 0 ? "./" + path : path; }

// Whether the child process exits with status 0 within `seconds`; one that does not is killed.
bool exited_well(pid_t child, int seconds) {
  int status = 0;
  for (int waited_ms = 0; waited_ms < seconds * 1000; waited_ms += 10) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (done < 0) return false;
    usleep(10000);
  }
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
  return false;
}

constexpr int render_seconds = 120;  // rsvg-convert renders attnlab's largest pictures in about a second

// Renders the SVG file to `png_path` with rsvg-convert, run without a shell, into a temporary
// file renamed into place when whole.
void write_png(const std::string& tool, const std::string& svg_path, const std::string& png_path) {
  const std::string tmp = png_path + ".tmp-" + std::to_string(getpid()), svg = not_an_option(svg_path), out = not_an_option(tmp);
  const pid_t child = fork();
  if (child == 0) {  // only exec and _exit in the child (async-signal-safe)
    execl(tool.c_str(), "rsvg-convert", "-f", "png", "-o", out.c_str(), svg.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const bool rendered = child > 0 && exited_well(child, render_seconds);
  if (rendered && not_a_regular_file(tmp) == "no such file")
    throw FileError("rsvg-convert wrote no PNG for " + svg_path + "; the SVG is written");
  errno = 0;
  if (rendered && std::rename(tmp.c_str(), png_path.c_str()) == 0) return;
  const int error = errno;
  std::remove(tmp.c_str());
  if (!rendered)
    throw FileError("rsvg-convert could not render " + svg_path + " as " + png_path + " (in " + std::to_string(render_seconds) +
                    " s); the SVG is written");
  throw write_error(png_path, error);
}

int inspect(const std::vector<std::string>& args) {
  const Arguments a(args, {}, {"--run"});
  const std::string& path = results_path(a);
  // The file may have been written by another program: its names reach the terminal as text, never as escapes.
  const std::string shown = a.has("--run") ? inspect_run(path, a.value("--run", "")) : inspect_results(path);
  std::printf("%s", without_control_characters(shown, "\n").c_str());
  return 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The -o path (or `fallback`), refused unless it ends in one of `extensions`: a picture is never
// written under a name that says another format.
std::string output_path(const Arguments& a, const std::string& fallback, const std::vector<std::string>& extensions) {
  if (a.has("-o") && a.has("--output")) throw UsageError("-o and --output are one option: give one of them");
  const std::string out = a.value("-o", a.value("--output", fallback));
  std::string known;
  for (const std::string& e : extensions) {
    if (ends_with(out, e)) return out;
    known += (known.empty() ? "" : " or ") + e;
  }
  const auto dot = out.rfind('.');
  throw UsageError("-o " + out + ": " + (dot == std::string::npos || out.find('/', dot) != std::string::npos
                                              ? std::string("no extension")
                                              : "unknown extension '" + out.substr(dot) + "'") +
                   "; write " + known);
}

std::string stem_of(const std::string& results) {
  return results.substr(0, results.rfind(".h5") == std::string::npos ? results.size() : results.rfind(".h5"));
}

// --rollout FUSION or --flow FUSION: the view composes each map over its layers.
void composition(const Arguments& a, AttentionView& view) {
  if (a.has("--rollout") && a.has("--flow")) throw UsageError("--rollout and --flow exclude each other: one composition per picture");
  if (!a.has("--rollout") && !a.has("--flow")) return;
  view.composed = a.has("--rollout") ? "rollout" : "flow";
  view.fusion = a.value("--" + view.composed, "mean");
  try {
    if (!(view.composed == "rollout" && view.fusion == "gradient")) head_fusion(view.fusion);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--" + view.composed + " takes how the heads are fused: " + e.what() +
                     (view.composed == "rollout" ? "; or gradient (Chefer et al.'s gradient-weighted rollout)" : ""));
  }
  if (view.layer || view.head || view.average)
    throw UsageError("--" + view.composed + " composes every layer and fuses the heads: --layer, --head and --average do not apply");
}

// The run's model rebuilt, for --rollout gradient: the view asks it for the relevance of a map's
// weights (attention_relevance.hpp). Its registries (the run's plugins) outlive its parts.
struct RebuiltModel {
  Registries registries;
  RunPlan plan;
  std::unique_ptr<RunParts> parts;
};

std::unique_ptr<RebuiltModel> relevance_source(const Arguments& a, const ResultsReader& f, const std::string& run, AttentionView& view) {
  if (view.fusion != "gradient") {
    if (a.has("--plugin")) throw UsageError("--plugin loads a run's plugins to rebuild its model, which only --rollout gradient does: remove it");
    return nullptr;
  }
  if (a.has("--probe"))  // (refused before the model is rebuilt; draw_attention refuses the rest)
    throw UsageError("--rollout gradient explains a recorded example (--example N): the log-likelihood of the model's prediction "
                     "is taken on the probe set, which typed probes are not part of");
  auto rebuilt = std::make_unique<RebuiltModel>();
  rebuilt->parts = rebuilt_run(f, run, a, rebuilt->registries, rebuilt->plan);
  Model* model = rebuilt->parts->model.get();
  view.relevance = [model, run](const std::string& map, std::size_t example) {
    try {
      return attention_relevance(*model, example, map);
    } catch (const std::logic_error& e) {  // (invalid_argument too: no such map, a model without a loss)
      throw UsageError("--rollout gradient on run '" + run + "': " + e.what());
    }
  };
  return rebuilt;
}

// An option of another kind of picture would be ignored without a word: refused instead.
void refuse_options_of_other_pictures(const Arguments& a) {
  const std::string kind = a.flag("--attention") ? "--attention" : a.flag("--curves") ? "--curves" : "--fit";
  const std::map<std::string, std::set<std::string>> reads = {
      {"--attention", {"--example", "--probe", "--map", "--layer", "--head", "--average", "--own-scale", "--rollout", "--flow", "--plugin"}},
      {"--curves", {"--metric"}},
      {"--fit", {}}};
  for (const std::string option :
       {"--example", "--probe", "--map", "--layer", "--head", "--average", "--own-scale", "--metric", "--rollout", "--flow", "--plugin"})
    if ((a.has(option) || a.flag(option)) && !reads.at(kind).count(option))
      throw UsageError(option + " does not apply to " + kind + " (it is an option of " +
                       (reads.at("--curves").count(option) ? "--curves" : "--attention") + "): remove it");
}

int plot(const std::vector<std::string>& args) {
  const Arguments a(args, {"--attention", "--curves", "--fit", "--average", "--own-scale", "--png"},
                    {"--run", "--example", "--probe", "--map", "--layer", "--head", "--metric", "--rollout", "--flow", "--plugin", "-o",
                     "--output"});
  const std::string& path = results_path(a);
  const ResultsReader f(path);
  const int kinds = a.flag("--attention") + a.flag("--curves") + a.flag("--fit");
  if (kinds != 1) throw UsageError("choose one picture: --attention, --curves or --fit");
  refuse_options_of_other_pictures(a);
  std::vector<std::string> runs = a.all("--run");
  const std::vector<std::string> ids = f.run_ids();
  if (ids.empty()) throw UsageError("'" + path + "' holds no runs yet: nothing to draw (attnlab inspect shows what it holds)");
  if (runs.empty()) {
    if (a.flag("--curves")) runs = ids;
    else if (ids.size() == 1) runs = ids;
    else throw UsageError("the file holds " + std::to_string(ids.size()) + " runs; pick one with --run ID (attnlab inspect lists them)");
  }
  std::string svg, what;
  if (a.flag("--attention") && runs.size() > 1)
    throw UsageError("--attention draws one run's maps; give one --run (got " + std::to_string(runs.size()) + ")");
  if (a.flag("--attention")) {
    AttentionView view;
    if (a.has("--example")) view.example = ResultsReader::example_name(static_cast<std::size_t>(a.integer("--example", 0, 0, 1 << 30)));
    if (a.has("--probe")) view.example = ResultsReader::probe_name(static_cast<std::size_t>(a.integer("--probe", 0, 0, 1 << 30)));
    if (a.has("--example") && a.has("--probe")) throw UsageError("--example and --probe exclude each other: a recorded example or a typed probe");
    view.map = a.value("--map", "");
    if (a.has("--layer")) view.layer = static_cast<std::size_t>(a.integer("--layer", 0, 0, 1 << 20));
    if (a.has("--head")) view.head = static_cast<std::size_t>(a.integer("--head", 0, 0, 1 << 20));
    view.average = a.flag("--average");
    view.own_scale = a.flag("--own-scale");
    if (view.average && view.head) throw UsageError("--head and --average exclude each other: one head, or the mean over heads");
    composition(a, view);
    const auto rebuilt = relevance_source(a, f, runs.at(0), view);  // (the model view.relevance reads: it outlives the drawing)
    svg = attention_picture(f, runs.at(0), view);
    what = (view.composed.empty() ? "attention" : view.composed) + (view.map.empty() ? "" : "-" + view.map);
  } else if (a.flag("--curves")) {
    svg = curves_picture(f, runs, a.all("--metric"));
    what = "curves";
  } else {
    svg = fit_picture(f, runs);
    what = "fit";
  }
  const std::string out =
      output_path(a, stem_of(path) + "-" + (runs.size() == 1 ? runs[0] + "-" : "") + what + ".svg", {".svg", ".png"});
  const bool png_only = ends_with(out, ".png"), png = png_only || a.flag("--png");
  const std::string svg_path = png_only ? out.substr(0, out.size() - 4) + ".svg" : out;
  const std::string png_path = svg_path.substr(0, svg_path.size() - 4) + ".png";
  // Everything that can refuse the command runs before the first file is written.
  const std::string tool = png ? rsvg_convert_path() : "";
  if (png && tool.empty()) throw UsageError("a PNG needs rsvg-convert (Debian package librsvg2-bin); nothing is written");
  if (png) check_output(png_path, path);
  write_file(svg_path, svg, path);
  std::printf("wrote %s\n", svg_path.c_str());
  if (png) {
    write_png(tool, svg_path, png_path);
    std::printf("wrote %s\n", png_path.c_str());
  }
  return 0;
}

int report(const std::vector<std::string>& args) {
  const Arguments a(args, {}, {"-o", "--output"});
  const std::string& path = results_path(a);
  const std::string out = output_path(a, stem_of(path) + "-report.html", {".html", ".htm"});
  write_file(out, html_report(path), path);
  std::printf("wrote %s (self-contained: open it in any browser, offline)\n", out.c_str());
  return 0;
}

}  // namespace

Command inspect_command() {
  return {"inspect", "show what a results file holds: runs, status, config differences, metrics, attention maps",
          "usage: attnlab inspect RESULTS.h5 [--run ID]\n"
          "  Without --run: every run's status, epochs, wall time and final metrics, the config keys\n"
          "  whose values differ between runs, and the attention maps stored.\n"
          "  --run ID   the run's tree: groups, datasets with their shapes, attributes, and its config",
          inspect, true};
}

Command plot_command() {
  return {"plot", "draw attention heatmaps, training curves or a Nadaraya-Watson fit as SVG (and PNG)",
          "usage: attnlab plot RESULTS.h5 (--attention | --curves | --fit) [options]\n"
          "  --attention       heatmap of one recorded example: queries (output tokens) x keys (source tokens)\n"
          "    --run ID --example N (recorded) or --probe N (typed: attnlab probe) --map NAME --layer L --head H\n"
          "    --average (mean over heads)\n"
          "    --own-scale (each panel coloured to its own largest weight; default: one [0, 1] scale)\n"
          "    --rollout mean|max|min  a self-attention map composed over its layers (Abnar & Zuidema 2020):\n"
          "                      the heads fused, the residual added, the layers multiplied\n"
          "    --rollout gradient      Chefer et al. 2021: each layer's heads weighed by dy/dA * A (y: the\n"
          "                      log-likelihood of the model's own prediction); rebuilds the run's model\n"
          "                      (--plugin PATH for a plugin library that moved)\n"
          "    --flow mean|max|min     the same as a maximum flow through the layers (up to 64 positions)\n"
          "  --curves          per-epoch metrics of several runs overlaid\n"
          "    --run ID (repeatable; default every run) --metric NAME (repeatable; default the losses)\n"
          "  --fit             Nadaraya-Watson: training points, truth and prediction, beside the kernel map\n"
          "    --run ID (repeatable: runs side by side, e.g. the four kernels of experiments/kernels.yaml)\n"
          "  -o PATH           output file (.svg, or .png to render it); default RESULTS-RUN-KIND.svg\n"
          "  --png             also write a PNG beside the SVG (needs rsvg-convert, Debian package librsvg2-bin)",
          plot, true};
}

Command report_command() {
  return {"report", "write one self-contained, interactive HTML report of a results file",
          "usage: attnlab report RESULTS.h5 [-o REPORT.html]\n"
          "  One HTML file that needs no network (its script and data are inside): the comparison\n"
          "  table, attention metrics per layer and head, training curves per sweep point (mean +- std\n"
          "  over seeds), the heads taken apart by `attnlab ablate` (grids and the pruning curve), an\n"
          "  attention explorer (run, example, map, layer, head, epoch slider, heatmap, token view),\n"
          "  two runs side by side, each run's config, and the spec (docs/analysis.md).",
          report, true};
}

}  // namespace attn::cli
