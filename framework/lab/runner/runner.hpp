// `attnlab run` and `attnlab validate`: read and validate a spec (every problem at once,
// exit code 2, nothing written), then execute its runs in parallel on TBB — the runs tasks of
// one arena of --threads threads, the work inside each run nested tasks of it (chunk_scheduler.hpp),
// BLAS single-threaded — with one writer thread that saves each finished run to the HDF5
// results file and shows progress, and finally the comparison table.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/files/output_claim.hpp"

#include "lab/spec/spec.hpp"

namespace attn {

// `--shard K/N`: the K-th (1-based) of N parts of the sweep's runs, by sweep order: part K has
// the runs [floor((K-1) R / N), floor(K R / N)) of R. Every part agrees without talking to the
// others; `attnlab merge` puts the parts' files together (docs/scaling.md).
struct Shard {
  std::size_t index = 1, count = 1;
  std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
};
// The positions in sweep order of shard's runs among `runs`.
std::pair<std::size_t, std::size_t> shard_range(std::size_t runs, const Shard& shard);

struct RunnerOptions {
  int threads = 0;                      // 0: all cores
  bool resume = false;                  // complete an interrupted sweep in the existing file
  bool force = false;                   // overwrite an existing results file
  std::vector<std::string> overrides;   // --set key=value
  std::vector<std::string> plugins;     // --plugin PATH
  std::optional<std::string> output;    // --output PATH (instead of the spec's)
  double checkpoint_seconds = 600;      // --checkpoint-every: mid-run checkpoints (checkpoints.hpp); 0: only on Ctrl-C
  std::optional<Shard> shard;           // --shard K/N: only that part of the runs
  std::optional<double> max_memory;     // --max-memory: bytes one run may use (default: the
                                        // memory available divided by the runs at once)
};

// Exit codes: 0 every run finished; 1 some run failed, diverged or was interrupted;
// 2 the spec or the command line is invalid (nothing was run or written); 130 Ctrl-C.
int run_experiment(const std::string& spec_path, const RunnerOptions& options);
int validate_experiment(const std::string& spec_path, const RunnerOptions& options);
// `attnlab keys SPEC`: the options the spec's datasets and models read, each with its type,
// default and range, and the value the spec gives it. Exit codes as validate_experiment's.
int list_spec_options(const std::string& spec_path, const RunnerOptions& options);

// What a valid spec will run, for tools that split the work (`attnlab slurm`): its name, its
// results file, and its run ids in sweep order. Prints every problem and returns nothing when
// the spec is invalid.
struct SweepOutline {
  std::string name, output;
  std::vector<std::string> run_ids;
  std::vector<InputFile> inputs;  // what its runs read: the spec, the data files, the plugins
  std::string spec_text;          // what a results file of this sweep holds as its spec
  std::vector<std::string> configs;  // each run's resolved config, as its results keep it (run_ids' order)
};
std::optional<SweepOutline> outline_sweep(const std::string& spec_path, const RunnerOptions& options);

struct Diagnostic;
// Every problem `attnlab validate` would report (empty when the spec is valid).
std::vector<Diagnostic> check_spec(const std::string& spec_path, const RunnerOptions& options);

}  // namespace attn
