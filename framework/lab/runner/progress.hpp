// What the runner shows while it works: the active runs with their epoch, loss and ETA. On a
// terminal it redraws one status area in place; otherwise (a log, CI) it prints plain lines.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace attn {

class Progress {
 public:
  // total_runs: the runs this process runs (a shard's); sweep_runs: the sweep's, which number the
  // start lines by sweep position (0: the same as total_runs).
  Progress(std::FILE* out, bool terminal, std::size_t total_runs, std::size_t skipped, std::size_t sweep_runs = 0);

  // A run at sweep position `index` starts, to train `epochs` epochs (0: nothing to train).
  void started(const std::string& id, std::size_t index, std::size_t epochs);
  void epoch(const std::string& id, std::size_t epoch, double loss);  // from worker threads
  // What a run does after training, e.g. "evaluating at length 512 (2 of 3)" (from worker threads).
  void stage(const std::string& id, const std::string& what);
  void finished(const std::string& id, const std::string& status, double seconds, const std::string& note);
  void redraw();  // terminal mode: refresh the status area (called periodically)
  void done();    // leave the final state on screen

 private:
  struct Active {
    std::size_t epoch = 0, epochs = 0;
    double loss = 0.0;
    std::chrono::steady_clock::time_point start;
    std::string stage = {};  // after training
  };
  void clear_area();
  std::string line_for(const std::string& id, const Active& a) const;

  std::FILE* out_;
  bool terminal_;
  std::size_t total_, done_ = 0, sweep_runs_;
  std::map<std::string, Active> active_;
  std::size_t drawn_lines_ = 0;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace attn
