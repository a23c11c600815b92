// The HDF5 layout of results files and checkpoints: every path and attribute name, for the
// files of the results-format module (results_format.cpp, results_attention.cpp,
// results_heads.cpp) and no one else.
#pragma once

#include <string>
#include <vector>

#include <optional>

#include "attnlab/models/attention_metrics.hpp"
#include "attnlab/models/head_ablation.hpp"
#include "attnlab/models/model.hpp"
#include "attnlab/training/trainer.hpp"
#include "lab/results/hdf5_file.hpp"

namespace attn::layout {

inline const std::string runs_group = "/runs";
inline const std::string summary_group = "/summary";
inline const std::string trainer_group = "/trainer";  // checkpoints
inline const std::string config_attribute = "config";
inline const std::string overrides_attribute = "overrides";
inline const std::string metric_prefix = "metric.";
inline const std::string params_checksum_attribute = "params_checksum";  // params_checksum.hpp
inline std::string group_of(const std::string& id) { return runs_group + "/" + id; }
inline std::string history_of(const std::string& id) { return group_of(id) + "/history"; }
inline std::string attention_of(const std::string& id) { return group_of(id) + "/attention"; }
inline std::string attention_metrics_of(const std::string& id) { return group_of(id) + "/attention_metrics"; }
inline std::string data_of(const std::string& id) { return group_of(id) + "/data"; }
inline std::string vocab_of(const std::string& id) { return group_of(id) + "/vocab"; }
inline std::string probes_of(const std::string& id) { return group_of(id) + "/probes"; }
inline std::string lengths_of(const std::string& id) { return group_of(id) + "/lengths"; }
inline std::string heads_of(const std::string& id) { return group_of(id) + "/heads"; }
inline const std::string probe_prefix = "probe_";
// Beside a history (`base`: a run's group, or a checkpoint's /trainer), what is kept per epoch
// but is not one number per epoch: the attention metrics per layer and head, the snapshots of
// the recorded maps and the per-epoch arrays. Formats 4 to 6 kept them inside history/
// (history/attention, history/snapshots, history/arrays); readers take either.
inline std::string attention_history_in(const std::string& base) { return base + "/attention_history"; }
inline std::string snapshots_in(const std::string& base) { return base + "/snapshots"; }
inline std::string epoch_arrays_in(const std::string& base) { return base + "/epoch_arrays"; }
// `now` when the file has it; else the group of formats 4 to 6 inside <base>/history, `before`.
inline std::string present(const Hdf5File& f, const std::string& now, const std::string& base, const std::string& before) {
  return f.exists(now) ? now : base + "/history/" + before;
}
inline std::string example_name(std::size_t index) { return "example_" + std::to_string(index); }
inline std::string epoch_name(std::size_t epoch) { return "epoch_" + std::to_string(epoch); }

// What a dataset holds, as attributes a reader finds without the docs: the axes' names
// (comma-separated), the unit of the values and one line of description.
void describe(Hdf5File& f, const std::string& path, const std::string& dims, const std::string& units,
              const std::string& description);

// Recorded maps: one group per example (attributes example, source, target, prediction), one
// subgroup per map kind (weights [layer, head, query, key], queries, keys, and when known
// query_positions, key_positions, gold_keys).
void write_example(Hdf5File& f, const std::string& group, const ExampleAttention& ex);
ExampleAttention read_example(const Hdf5File& f, const std::string& group);

// Attention metrics per map kind: <group>/<map>/<metric>, float32 [layer, head].
void write_attention_metrics(Hdf5File& f, const std::string& group, const std::vector<MapMetrics>& metrics);
// results_heads.cpp: a run's head analysis (attnlab ablate) under heads/.
void write_head_analysis(Hdf5File& f, const std::string& group, const HeadAnalysis& analysis);
std::optional<HeadAnalysis> read_head_analysis(const Hdf5File& f, const std::string& group);
std::vector<MapMetrics> read_attention_metrics(const Hdf5File& f, const std::string& group);

// The attention part of a history beside it: <base>/attention_history/<map>/<metric> float32
// [epoch, layer, head] (NaN in epochs not measured) and <base>/snapshots/epoch_<e>/example_<i>/...
void write_attention_history(Hdf5File& f, const std::string& base, const std::vector<EpochRecord>& history);
void read_attention_history(const Hdf5File& f, const std::string& base, std::vector<EpochRecord>& history);
// EpochRecord::arrays of every epoch as <base>/epoch_arrays/<name> [epoch, ...] (NaN where an
// epoch was not evaluated), and back.
void write_array_history(Hdf5File& f, const std::string& base, const std::vector<EpochRecord>& history);
void read_array_history(const Hdf5File& f, const std::string& base, std::vector<EpochRecord>& history);

}  // namespace attn::layout
