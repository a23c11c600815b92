// `attnlab probe RESULTS.h5 --run ID "2 7 1" ...`: a trained run looks at inputs the user types;
// their tokens and every attention map (each layer and head) are added to the run's group as
// probe_<n>, which `attnlab plot --attention --probe N` and `attnlab report` show.
#include <cstdio>

#include "lab/files/output_claim.hpp"
#include "lab/results/summary.hpp"
#include "trained_run.hpp"

namespace attn::cli {
namespace {

int probe(const std::vector<std::string>& args) {
  const Arguments a(args, {}, {"--run", "--plugin"});
  if (a.positional().size() < 2) throw UsageError("expected a results file and at least one input sentence");
  const std::string& path = a.positional()[0];
  const std::vector<std::string> inputs(a.positional().begin() + 1, a.positional().end());
  std::string id;
  TrainedRun run;
  {
    const ResultsReader file(path);  // closed before the file is written
    id = chosen_run(file, a);
    rebuild(run, file, id, a, inputs);
  }
  std::vector<std::size_t> all(inputs.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const NoGrad no_grad;
  std::vector<ExampleAttention> looked = run.model->record_attention(all);
  for (ExampleAttention& ex : looked) ex.target.clear();  // typed inputs have no target
  const OutputClaim claim(path, {});  // the probes are stored into the file: no other command writes it meanwhile
  const std::vector<std::string> names = add_probes(path, id, looked);
  for (std::size_t i = 0; i < looked.size(); ++i) {
    std::printf("%s: %s => %s\n", names[i].c_str(), looked[i].source.c_str(), looked[i].prediction.c_str());
    for (const MapMetrics& m : attention_metrics({looked[i]}))
      std::printf("  %-13s entropy %s, largest weight %s, effective keys %s\n", m.map.c_str(),
                  format_number(m.mean("entropy")).c_str(), format_number(m.mean("max_weight")).c_str(),
                  format_number(m.mean("effective_keys")).c_str());
  }
  std::printf("added to %s, run %s (attnlab plot %s --run %s --attention --probe N; attnlab report %s)\n", path.c_str(),
              id.c_str(), path.c_str(), id.c_str(), path.c_str());
  return 0;
}

}  // namespace

Command probe_command() {
  return {"probe", "run a trained model on inputs you type, and keep its attention maps in the results file",
          "usage: attnlab probe RESULTS.h5 [--run ID] [--plugin PATH]... INPUT...\n"
          "  Loads the run's weights, decodes each INPUT greedily (d2l's preprocessing: tokens split\n"
          "  at spaces, punctuation apart), and adds its tokens and every attention map (each layer\n"
          "  and head) to the run's group as probe_<n>. Shown by `attnlab plot --attention --probe N`\n"
          "  and by `attnlab report`. A token outside the run's vocabulary is an error, and nothing\n"
          "  is written.",
          probe, true};
}

}  // namespace attn::cli
