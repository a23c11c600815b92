// Mid-run checkpoints of `attnlab run`. Research runs last hours: each run's trainer state
// (parameters, optimizer state, random stream, history, early-stopping state) is saved every
// `every_seconds` and when the run is interrupted, in its own file
//   <results>.checkpoints/<run id>.h5
// so that `--resume` continues an unfinished run from its last checkpoint instead of from
// scratch, with results bit-identical to an uninterrupted run. A checkpoint is written to a
// temporary file and renamed: it is whole or absent, never half-written. It is removed once
// its run is written to the results file.
#pragma once

#include <string>

#include "attnlab/training/trainer.hpp"

namespace attn {

struct RunCheckpoint {
  std::string path;          // this run's checkpoint file
  std::string config;        // the run's resolved config; a checkpoint made with another is not used
  double every_seconds = 0;  // between periodic checkpoints; 0: only when interrupted
  bool resume = false;       // continue from the file when it exists
};

std::string checkpoint_directory(const std::string& results_path);
std::string checkpoint_path(const std::string& results_path, const std::string& run_id);

void save_checkpoint(const Trainer& trainer, const RunCheckpoint& checkpoint);
// With checkpoint.resume, restores the trainer from the file when it exists and was made with
// the same config; returns the epochs it restored (0: the run starts from scratch).
std::size_t load_checkpoint(Trainer& trainer, const RunCheckpoint& checkpoint);

// One run's checkpoint (its run was written). The directory stays: another run may be about to
// write into it (remove_empty_checkpoint_directory, once no run is running).
void remove_checkpoint(const std::string& results_path, const std::string& run_id);
// The checkpoint directory, if no checkpoint is left in it (the sweep has ended).
void remove_empty_checkpoint_directory(const std::string& results_path);
// Every checkpoint of a results file (a new sweep starts).
void remove_checkpoints(const std::string& results_path);

}  // namespace attn
