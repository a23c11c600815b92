// `attnlab merge`: the files of a sweep's parts (`attnlab run --shard K/N`, on any machines)
// made into the one results file a single machine would have written: every run's group is
// copied as it is (params, history, snapshots, maps, metrics), the root attributes are the
// sweep's, and the comparison table is computed again over all runs. Only timings
// (wall_seconds, history seconds, created) and the host a run ran on differ from one machine.
//
// Refused, with one line saying what to do and nothing written: a part that is not a results
// file or is damaged; parts of another spec, attnlab version, results format or --set; a run in
// two parts; runs in no part (listed; `allow_missing` merges what there is). The output is
// written beside its final name and renamed when whole.
#pragma once

#include <string>
#include <vector>

namespace attn {

struct MergeOptions {
  bool allow_missing = false;  // merge although runs of the sweep are in no part
  bool force = false;          // replace an existing output file
};

struct MergeResult {
  std::size_t runs = 0, planned = 0;
  std::vector<std::string> missing;     // runs of the sweep in no part (allow_missing)
  std::vector<std::string> unfinished;  // runs merged that did not finish (failed, interrupted)
};

// Throws UsageError for refusals and FileError for parts it cannot read.
MergeResult merge_results(const std::string& output, const std::vector<std::string>& parts, const MergeOptions& options);

}  // namespace attn
