// `attnlab ablate RESULTS.h5 --run ID`: a trained run's attention taken apart head by head
// (attnlab/models/head_ablation.hpp): each head and each layer switched off, Michel et al.'s
// head importance and the pruning curve; printed as tables and stored in the run's heads/.
#include <unistd.h>

#include <cstdio>

#include "lab/files/output_claim.hpp"
#include "lab/results/summary.hpp"
#include "trained_run.hpp"

namespace attn::cli {
namespace {

// One grid as a table: a row per layer, a column per head (per_layer: one column, the layer's).
void print_grid(const HeadGrid& g, const std::string& metric, const std::string& title, bool per_layer = false) {
  if (!g.values.count(metric)) return;
  std::vector<std::string> header = {"layer"};
  for (std::size_t h = 0; h < g.heads; ++h) header.push_back(per_layer ? "all heads" : "head " + std::to_string(h));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t l = 0; l < g.layers; ++l) {
    rows.push_back({std::to_string(l)});
    for (std::size_t h = 0; h < g.heads; ++h) rows.back().push_back(format_number(g.values.at(metric)[l * g.heads + h]));
  }
  std::printf("\n%s, map %s:\n%s", title.c_str(), g.map.c_str(), render_table(header, rows, TableFormat::text).c_str());
}

void print_analysis(const HeadAnalysis& h) {
  const std::string metric = headline_metric(h.baseline);
  std::printf("\nthe model: %s = %s (heads switched off become %s)\n", metric.c_str(), format_number(h.baseline.at(metric)).c_str(),
              h.replacement == "mean" ? "their mean output" : "0");
  for (const HeadGrid& g : h.ablation) print_grid(g, metric, "change of " + metric + " with one head switched off");
  for (const HeadGrid& g : h.layer_ablation) print_grid(g, metric, "change of " + metric + " with a layer's attention switched off", true);
  for (const HeadGrid& g : h.importance) print_grid(g, "importance", "head importance (Michel et al. 2019, normalised per layer)");
  if (h.pruning.kept.empty() || !h.pruning.metrics.count(metric)) return;
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < h.pruning.kept.size(); ++i)
    rows.push_back({format_number(h.pruning.kept[i]), format_number(h.pruning.metrics.at(metric)[i])});
  std::printf("\npruning the least important heads, 10%% at a time:\n%s", render_table({"heads kept", metric}, rows, TableFormat::text).c_str());
}

int ablate(const std::vector<std::string>& args) {
  const Arguments a(args, {"--no-pruning", "--no-decoding"}, {"--run", "--replace", "--plugin"});
  if (a.positional().size() != 1) throw UsageError("expected one results file");
  const std::string& path = a.positional()[0];
  const std::string replace = a.value("--replace", "zero");
  if (replace != "zero" && replace != "mean")
    throw UsageError("--replace takes 'zero' (a head switched off outputs 0) or 'mean' (its mean output over the evaluation data), got '" +
                     replace + "'");
  std::string id;
  Registries registries;
  RunPlan plan;
  std::unique_ptr<RunParts> parts;
  {
    const ResultsReader file(path);  // closed before the file is written
    id = chosen_run(file, a);
    parts = rebuilt_run(file, id, a, registries, plan);
  }
  const OutputClaim claim(path, {});  // the analysis is stored into the file: no other command writes it meanwhile
  HeadAnalysisOptions o;
  o.mean_replacement = replace == "mean";
  o.pruning = !a.flag("--no-pruning");
  o.full_metrics = !a.flag("--no-decoding");
  const bool terminal = isatty(fileno(stderr)) != 0;  // progress redrawn in place; none into a file or pipe
  if (terminal)
    o.progress = [](const std::string& what, std::size_t i, std::size_t n) { std::fprintf(stderr, "\r%s %zu/%zu   ", what.c_str(), i + 1, n); };
  HeadAnalysis analysis;
  try {
    analysis = analyse_heads(*parts->model, o);
  } catch (const std::invalid_argument& e) {
    throw UsageError("run '" + id + "' (model " + plan.model + "): " + e.what());
  }
  if (terminal) std::fprintf(stderr, "\r%40s\r", "");
  write_head_analysis(path, id, analysis);
  print_analysis(analysis);
  std::printf("\nstored in %s, run %s, group heads/ (every metric's grids; docs/hdf5-layout.md)\n", path.c_str(), id.c_str());
  return 0;
}

}  // namespace

Command ablate_command() {
  return {"ablate", "take a trained run's attention apart: each head and layer switched off, head importance, pruning",
          "usage: attnlab ablate RESULTS.h5 [--run ID] [--replace zero|mean] [--no-pruning] [--no-decoding]\n"
          "                      [--plugin PATH]...\n"
          "  Rebuilds the run's model and data and evaluates it on its evaluation split with each\n"
          "  attention head switched off in turn (its output 0, or with --replace mean its mean\n"
          "  output over that data), then with each layer's attention switched off; measures each\n"
          "  head's importance (Michel et al. 2019: the mean over examples of |dL/dxi| for a gate xi\n"
          "  on the head, normalised per layer); and the pruning curve (not with --no-pruning): the\n"
          "  metrics as the least important 10% of the heads are removed at each step.\n"
          "  --no-decoding leaves out the metrics that need decoding (exact match, BLEU): faster.\n"
          "  Prints the grids of the run's main metric and stores every metric's in the run's\n"
          "  group heads/ (replacing an earlier analysis).",
          ablate, true};
}

}  // namespace attn::cli
