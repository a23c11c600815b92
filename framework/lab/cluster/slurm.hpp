// `attnlab slurm SPEC`: a sweep as a Slurm job array and a merge job. Task K of N runs
// `attnlab run SPEC --shard K/N` into OUTPUT_DIR/part-K.h5 (resuming it when it exists); the
// merge job, started only if every task succeeded (--dependency=afterok), runs `attnlab merge`
// into the spec's results file. Slurm's warning signal before a time limit (USR1) makes a task
// checkpoint its runs. Run again after failures or time-outs, it submits only the tasks whose
// parts are unfinished, which resume from their checkpoints. No text of the spec reaches a
// script: they hold only attnlab's path, the paths and --set values the user gave, and numbers.
#pragma once

#include <string>
#include <vector>

namespace attn {

struct SlurmOptions {
  std::size_t tasks = 0;          // --tasks N (0: from runs_per_task)
  std::size_t runs_per_task = 0;  // --runs-per-task k (0 with tasks 0: one run per task)
  std::size_t max_parallel = 0;   // --max-parallel P: the array's %P throttle (0: none)
  std::size_t cpus_per_task = 1;  // --cpus-per-task c: the task's --threads (BLAS stays single-threaded)
  std::string partition, time, mem;  // passed to #SBATCH as given ("" leaves Slurm's default)
  std::string output_dir;         // scripts, parts, logs (default: RESULTS.slurm/ beside the results file)
  std::string output;             // --output: the merged results file instead of the spec's
  bool submit = false;            // call sbatch and print the job ids
  std::vector<std::string> overrides, plugins;  // --set, --plugin: passed to every task
};

// Exit codes: 0 scripts written (and submitted); 1 sbatch failed; 2 invalid spec or options.
int slurm_experiment(const std::string& spec_path, const SlurmOptions& options);

}  // namespace attn
