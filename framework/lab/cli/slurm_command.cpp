// `attnlab slurm SPEC`: the sweep as a Slurm job array and a merge job (docs/scaling.md).
#include "arguments.hpp"
#include "lab/cluster/slurm.hpp"

namespace attn::cli {

Command slurm_command() {
  return {"slurm", "write (and submit) a Slurm job array for a sweep, and a job that merges its parts",
          "usage: attnlab slurm SPEC.yaml [options]\n"
          "  Writes OUTPUT_DIR/array.sbatch (task K runs `attnlab run SPEC --shard K/N` into\n"
          "  OUTPUT_DIR/part-K.h5) and merge.sbatch (`attnlab merge` into the spec's results file,\n"
          "  after every task succeeded). Run it again after failures or time-outs: it submits only\n"
          "  the tasks whose parts are unfinished, and they resume from their checkpoints.\n"
          "  --tasks N            N array tasks (at most the number of runs)\n"
          "  --runs-per-task k    or: tasks of k runs each (default 1)\n"
          "  --max-parallel P     at most P tasks at once (the array's %P)\n"
          "  --cpus-per-task c    CPUs of a task, its runs at once (default 1; BLAS single-threaded)\n"
          "  --partition NAME, --time LIMIT, --mem SIZE   passed to sbatch as given\n"
          "  --output-dir DIR     scripts, parts and logs (default: RESULTS.slurm/ beside the results file)\n"
          "  --output PATH        the merged results file instead of the spec's output\n"
          "  --set KEY=VALUE, --plugin PATH   as for attnlab run, passed to every task\n"
          "  --submit             call sbatch and print the job ids (otherwise print the commands)\n"
          "  A task checkpoints its runs on Slurm's warning before its time limit (USR1, 90 s before).\n"
          "  exit codes: 0 written (and submitted); 1 sbatch failed; 2 invalid spec or options",
          [](const std::vector<std::string>& args) {
            const Arguments a(args, {"--submit"},
                              {"--tasks", "--runs-per-task", "--max-parallel", "--cpus-per-task", "--partition", "--time", "--mem",
                               "--output-dir", "--output", "--set", "--plugin"});
            if (a.positional().size() != 1) throw UsageError("expected exactly one spec file");
            SlurmOptions o;
            o.tasks = static_cast<std::size_t>(a.integer("--tasks", 0, 1, 100000));
            o.runs_per_task = static_cast<std::size_t>(a.integer("--runs-per-task", 0, 1, 100000));
            o.max_parallel = static_cast<std::size_t>(a.integer("--max-parallel", 0, 1, 100000));
            o.cpus_per_task = static_cast<std::size_t>(a.integer("--cpus-per-task", 1, 1, 1024));
            o.partition = a.value("--partition", "");
            o.time = a.value("--time", "");
            o.mem = a.value("--mem", "");
            o.output_dir = a.value("--output-dir", "");
            o.output = a.value("--output", "");
            o.submit = a.flag("--submit");
            o.overrides = a.all("--set");
            o.plugins = a.all("--plugin");
            return slurm_experiment(a.positional()[0], o);
          }};
}

}  // namespace attn::cli
