// `attnlab run SPEC` and `attnlab validate SPEC`.
#include "arguments.hpp"
#include "lab/runner/runner.hpp"

namespace attn::cli {
namespace {

RunnerOptions runner_options(const Arguments& a) {
  RunnerOptions o;
  o.threads = a.integer("--threads", 0, 0, 1024);
  o.resume = a.flag("--resume");
  o.force = a.flag("--force");
  o.overrides = a.all("--set");
  o.plugins = a.all("--plugin");
  if (a.has("--output")) o.output = a.value("--output", "");
  o.checkpoint_seconds = a.number("--checkpoint-every", o.checkpoint_seconds);
  if (!(o.checkpoint_seconds >= 0))
    throw UsageError("--checkpoint-every takes seconds between checkpoints, 0 or more (0: only on Ctrl-C)");
  if (o.resume && o.force) throw UsageError("--resume and --force exclude each other");
  return o;
}

const std::string& one_spec(const Arguments& a) {
  if (a.positional().size() != 1) throw UsageError("expected exactly one spec file");
  return a.positional()[0];
}

}  // namespace

Command run_command() {
  return {"run", "train and compare the runs of an experiment spec (YAML) into one HDF5 file",
          "usage: attnlab run SPEC.yaml [options]\n"
          "  Validates the spec (every problem at once), runs its sweep in parallel, writes every\n"
          "  run to the results file as it finishes, and prints the comparison table.\n"
          "  --threads N       runs at once (default 0: all cores); each run uses one thread\n"
          "  --set KEY=VALUE   override any key, e.g. --set training.epochs=5 (repeatable)\n"
          "  --plugin PATH     load a plugin library (repeatable; or list them under plugins: in the spec)\n"
          "  --output PATH     write here instead of the spec's output\n"
          "  --force           overwrite an existing results file\n"
          "  --resume          complete the sweep in an existing results file, skipping finished runs\n"
          "                    and continuing unfinished ones from their checkpoints\n"
          "  --checkpoint-every SECONDS  save each unfinished run's state this often (default 600;\n"
          "                    0: only on Ctrl-C) in OUTPUT.checkpoints/\n"
          "  exit codes: 0 all runs finished, 1 some did not, 2 invalid spec or command line, 130 Ctrl-C",
          [](const std::vector<std::string>& args) {
            const Arguments a(args, {"--resume", "--force"}, {"--threads", "--set", "--plugin", "--output", "--checkpoint-every"});
            return run_experiment(one_spec(a), runner_options(a));
          }};
}

Command validate_command() {
  return {"validate", "check an experiment spec without running anything",
          "usage: attnlab validate SPEC.yaml [--set KEY=VALUE]... [--plugin PATH]...\n"
          "  Reports every problem as file:line:col: message (exit code 2), or lists the runs.",
          [](const std::vector<std::string>& args) {
            const Arguments a(args, {}, {"--set", "--plugin"});
            return validate_experiment(one_spec(a), runner_options(a));
          }};
}

}  // namespace attn::cli
