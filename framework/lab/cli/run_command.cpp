// `attnlab run SPEC` and `attnlab validate SPEC`.
#include "arguments.hpp"
#include "lab/runner/memory_plan.hpp"
#include "lab/runner/runner.hpp"

namespace attn::cli {
namespace {

// "K/N" with 1 <= K <= N.
Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const auto whole = [](const std::string& digits) {
    return !digits.empty() && digits.size() <= 6 && digits.find_first_not_of("0123456789") == std::string::npos;
  };
  if (slash != std::string::npos && whole(text.substr(0, slash)) && whole(text.substr(slash + 1))) {
    const Shard s{std::stoul(text.substr(0, slash)), std::stoul(text.substr(slash + 1))};
    if (s.count >= 1 && s.index >= 1 && s.index <= s.count) return s;
  }
  throw UsageError("--shard takes K/N, the K-th of N parts of the sweep with 1 <= K <= N (e.g. --shard 2/4), not '" + text + "'");
}

RunnerOptions runner_options(const Arguments& a) {
  RunnerOptions o;
  o.threads = a.integer("--threads", 0, 0, 1024);
  o.resume = a.flag("--resume");
  o.force = a.flag("--force");
  o.overrides = a.all("--set");
  o.plugins = a.all("--plugin");
  if (a.has("--output")) {
    o.output = a.value("--output", "");
    if (o.output->empty()) throw UsageError("--output is empty: give the path of the results file, e.g. --output results.h5");
  }
  o.checkpoint_seconds = a.number("--checkpoint-every", o.checkpoint_seconds);
  if (!(o.checkpoint_seconds >= 0))
    throw UsageError("--checkpoint-every takes seconds between checkpoints, 0 or more (0: only on Ctrl-C)");
  if (o.resume && o.force) throw UsageError("--resume and --force exclude each other");
  if (a.has("--shard")) o.shard = parse_shard(a.value("--shard", ""));
  if (a.has("--max-memory")) {
    const std::string text = a.value("--max-memory", "");
    o.max_memory = parse_memory_size(text);
    if (!o.max_memory)
      throw UsageError("--max-memory takes the memory one run may use, a number with an optional unit K, M, G or T "
                       "(e.g. --max-memory 4G), not '" + text + "'");
  }
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
          "  --threads N       the cores to use (default 0: all): runs go at once, and the work inside\n"
          "                    each run is split over the cores; the results do not depend on N\n"
          "  --set KEY=VALUE   override any key, e.g. --set training.epochs=5 (repeatable)\n"
          "  --plugin PATH     load a plugin library (repeatable; or list them under plugins: in the spec)\n"
          "  --output PATH     write here instead of the spec's output\n"
          "  --force           overwrite an existing results file\n"
          "  --resume          complete the sweep in an existing results file, skipping finished runs\n"
          "                    and continuing unfinished ones from their checkpoints\n"
          "  --checkpoint-every SECONDS  save each unfinished run's state this often (default 600;\n"
          "                    0: only on Ctrl-C) in OUTPUT.checkpoints/\n"
          "  --shard K/N       run only the K-th of N parts of the sweep (by sweep order) into its own\n"
          "                    file; `attnlab merge` joins the parts (docs/scaling.md)\n"
          "  --max-memory SIZE the memory one run may use, e.g. 4G (default: the memory available now\n"
          "                    divided by the runs that go at once); a run that would need more is\n"
          "                    refused before it starts, at the spec key responsible\n"
          "  exit codes: 0 all runs finished, 1 some did not, 2 invalid spec or command line,\n"
          "  130 interrupted by Ctrl-C, SIGTERM or SIGUSR1 (runs checkpointed: continue with --resume)",
          [](const std::vector<std::string>& args) {
            const Arguments a(args, {"--resume", "--force"},
                              {"--threads", "--set", "--plugin", "--output", "--checkpoint-every", "--shard", "--max-memory"});
            return run_experiment(one_spec(a), runner_options(a));
          }};
}

Command validate_command() {
  return {"validate", "check an experiment spec without running anything",
          "usage: attnlab validate SPEC.yaml [--set KEY=VALUE]... [--plugin PATH]... [--threads N] [--max-memory SIZE]\n"
          "  Reports every problem as file:line:col: message (exit code 2), or lists the runs.\n"
          "  --threads and --max-memory set the memory each run may use, as for `attnlab run`.",
          [](const std::vector<std::string>& args) {
            const Arguments a(args, {}, {"--set", "--plugin", "--threads", "--max-memory"});
            return validate_experiment(one_spec(a), runner_options(a));
          }};
}

}  // namespace attn::cli
