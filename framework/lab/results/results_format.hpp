// The results format: the ONE module that knows the HDF5 layout of attnlab's files (documented
// in docs/hdf5-layout.md). Every path and attribute name is written here and nowhere else;
// the runner, checkpoints, compare, translate, inspect, plot and report all go through it.
//
//   /                          attrs format, format_version, attnlab_version, spec, spec_path,
//                              name, created, planned_runs, run_order, shard (parts of a sweep)
//   /runs/<id>/                attrs config, sweep_point, overrides, seed, index, status, error,
//                              wall_seconds, host, epochs_done, resumed_from_epoch,
//                              params_checksum, metric.<name>
//   /runs/<id>/params/<a>/<b>  float32, one dataset per parameter (path "a.b")
//   /runs/<id>/history/<col>   float64 per epoch, every column as long as the history: epoch,
//                              train_loss, grad_norm, clipped_fraction, lr, seconds,
//                              grad_norm.<group>, teacher_forcing (when sampled), metrics
//   /runs/<id>/attention_history/<map>/<metric>   float32 [epoch, layer, head] (attention metrics)
//   /runs/<id>/snapshots/epoch_<e>/example_<i>/<map>/...   (record.epochs)
//   /runs/<id>/epoch_arrays/<name>   float32 [epoch, ...] (Model::evaluation_arrays: confusion)
//   /runs/<id>/attention/example_<i>/<map>/{weights, queries, keys, query_positions, key_positions, gold_keys}
//   /runs/<id>/attention_metrics/<map>/<metric>    float32 [layer, head] (final model)
//   /runs/<id>/probes/probe_<n>/<map>/...          inputs typed to `attnlab probe`
//   /runs/<id>/data/<name>     arrays a picture needs (Nadaraya-Watson)
//   /runs/<id>/vocab/{source, target}, attr num_steps
//   /runs/<id>/lengths/{length, <metric>}   float64 [length]: the final model at other lengths
//   /runs/<id>/heads/...       the head analysis of `attnlab ablate` (results_heads.cpp)
//   /summary/                  the comparison table
// Checkpoints (one file per run): /trainer/{params, optimizer, best, history} and attributes.
//
// Writers open, write and close the file, so an interrupted sweep leaves every finished run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "attnlab/models/attention_metrics.hpp"
#include "attnlab/models/head_ablation.hpp"
#include "attnlab/models/model.hpp"
#include "attnlab/training/trainer.hpp"
#include "lab/results/hdf5_file.hpp"
#include "lab/results/summary.hpp"

namespace attn {

// The metrics of one model at several input lengths, by length (evaluation.lengths).
using LengthMetrics = std::vector<std::pair<std::size_t, Metrics>>;

constexpr const char* results_format_name = "attnlab-results";
// 2: history has grad_norm, the root has format_version. Files of format 1 (attnlab before the
// core/lab split, no format_version attribute) still read.
// 3: history has clipped_fraction, lr, grad_norm.<group> and (scheduled sampling) teacher_forcing.
// 4: attention metrics (history/attention, attention_metrics, metric.attention.*), snapshots
// (history/snapshots), gold_keys, probes (attnlab probe), the run attribute overrides, and
// dims/units/description on the arrays. Readers take each of them as optional.
// 5: classifiers' arrays (data/confusion, probe_images, probe_frames, probe_times,
// probe_lengths, adjacency) and the per-epoch arrays history/arrays/<name>. Optional too.
// 6: lengths/ (evaluation.lengths: the final model's metrics at each length). Optional.
// 7: the run attribute params_checksum (params_checksum.hpp), a file without it is not checked;
// heads/ (attnlab ablate), optional; history/ holds only its columns: history/attention,
// history/snapshots and history/arrays moved beside it, to attention_history, snapshots and
// epoch_arrays (readers take either place).
constexpr long results_format_version = 7;
constexpr const char* attnlab_version = "0.2.0";

// What the root of a results file says about it.
struct ResultsHeader {
  std::string spec, spec_path, name;  // the spec's YAML text, where it was read, its name
  std::size_t planned_runs = 0;
  std::vector<std::string> run_order;  // every planned run id, in sweep order (empty in files before it)
  std::string shard;                   // "K/N" in a file of `attnlab run --shard K/N`, else ""
  std::string created, attnlab_version;  // set when writing
  long format_version = results_format_version;
};

// Everything one run writes (the runner fills it; compare and the summary read RunInfo).
struct RunRecord {
  std::string id, config;  // the resolved config as YAML
  SweepPoint point;
  SweepPoint overrides;    // keys set by --set (the spec's own values are in config)
  std::uint64_t seed = 0;
  std::size_t index = 0;   // position in the sweep
  RunStatus status = RunStatus::failed;
  std::string error;       // why it failed
  double wall_seconds = 0.0;
  std::size_t resumed_from_epoch = 0;  // > 0: continued from its checkpoint after that epoch
  Metrics metrics;                      // final evaluation, plus train_loss of the last epoch
  std::vector<EpochRecord> history;
  NamedTensors params;                  // dotted name -> value
  std::vector<ExampleAttention> attention;
  std::vector<MapMetrics> attention_metrics;   // of the final model on the probe set, per head
  NamedTensors plot_data;               // Model::plot_data()
  std::vector<std::string> src_vocab, tgt_vocab;  // sequence data only (for `attnlab translate`)
  std::size_t num_steps = 0;
  LengthMetrics length_metrics;         // evaluation.lengths: the final model at each length
};

// The history as columns: epoch, train_loss, grad_norm, seconds, then each metric (NaN in the
// epochs that were not evaluated).
using HistoryColumns = std::vector<std::pair<std::string, std::vector<double>>>;
HistoryColumns history_columns(const std::vector<EpochRecord>& history);

// ---- writing ----
// About how many bytes write_run will add to a file for `run` (its arrays, and HDF5's objects),
// so that a run is not half written to a file system without room for it.
double record_bytes(const RunRecord& run);
void create_results_file(const std::string& path, const ResultsHeader& header);  // a new file
// Every change to an existing results file goes through update_atomically: the change is made
// to a copy (PATH.writing-<pid>), which then replaces the file, so that a kill at any moment
// leaves the file as it was or as changed, never damaged (HDF5 is not safe against a kill in the
// middle of a write: the next open says `addr overflow`).
void update_atomically(const std::string& path, const std::function<void(Hdf5File&)>& change);
// Removes the temporary files (PATH.writing-<pid>, PATH.creating-<pid>, PATH.merging-<pid>,
// and their own copies) that killed writers left. Called only while holding PATH's OutputClaim
// (output_claim.hpp): every command that writes PATH holds it, so no live process owns them. (Not
// whether the process the name gives still runs: a killed command's child runs on for a moment
// after the kill, and kill(pid, 0) says an unreaped process runs.)
void remove_leftovers(const std::string& path);
void write_run(const std::string& path, const RunRecord& run);  // replaces a run of that id
void write_summary(const std::string& path, const Summary& summary);
// Adds inputs a user typed (`attnlab probe`) to run `id` as probe_<n> (after the ones there),
// laid out as recorded examples; returns their names.
std::vector<std::string> add_probes(const std::string& path, const std::string& id, const std::vector<ExampleAttention>& probes);
// Stores run `id`'s head analysis (attnlab ablate) as its heads/ group, replacing one there.
void write_head_analysis(const std::string& path, const std::string& id, const HeadAnalysis& analysis);

// ---- reading ----
// A run's parameters against the checksum written with them: `stored` empty when the file has
// none (format 6 and older), else `now` is the checksum of the parameters in the file today.
struct ParamsCheck {
  std::string stored, now;
  bool checked() const { return !stored.empty(); }
  bool edited() const { return checked() && stored != now; }
  // "run R: its parameters were changed after training ...", for every command that reads them.
  std::string warning(const std::string& id) const;
};

struct Vocabularies {
  std::vector<std::string> source, target;
  std::size_t num_steps = 0;
};

class ResultsReader {
 public:
  // Opens and checks: an HDF5 file that is not an attnlab results file, or of a newer format,
  // is a FileError saying what to do.
  explicit ResultsReader(const std::string& path);
  const std::string& path() const { return file_.path(); }

  ResultsHeader header() const;
  std::vector<std::string> run_ids() const;  // sorted by name
  std::vector<RunInfo> runs() const;         // in sweep order
  // Every reader below throws a UsageError listing the runs (and the closest) for an unknown id.
  RunInfo run(const std::string& id) const;
  std::string config(const std::string& id) const;
  Tensor param(const std::string& id, const std::string& dotted_name) const;
  // `loaded`: the run's parameters as already read from this file (dotted names), so that they are
  // not read again; none: read here.
  ParamsCheck check_params(const std::string& id, const NamedTensors* loaded = nullptr) const;
  // Every history column, sorted by name; empty when the run trained nothing.
  HistoryColumns history(const std::string& id) const;
  // The final model's metrics at each length of evaluation.lengths (empty: none evaluated).
  LengthMetrics length_metrics(const std::string& id) const;
  // The run's head analysis (attnlab ablate), if one was stored.
  std::optional<HeadAnalysis> head_analysis(const std::string& id) const;
  std::vector<std::string> examples(const std::string& id) const;  // "example_0", ...
  std::vector<std::string> probes(const std::string& id) const;    // "probe_0", ... (attnlab probe)
  static std::string example_name(std::size_t index);                // probe-set example index -> "example_<index>"
  static std::string probe_name(std::size_t n);                      // the n-th typed probe -> "probe_<n>"
  // A recorded example ("example_<i>") or a probe ("probe_<n>").
  ExampleAttention example(const std::string& id, const std::string& example) const;
  // Attention metrics per map kind and head: of the final model, or of one epoch (empty when
  // that epoch was not measured).
  std::vector<MapMetrics> attention_metrics(const std::string& id) const;
  std::vector<MapMetrics> attention_metrics(const std::string& id, std::size_t epoch) const;
  // The epochs with snapshots of the recorded maps, and one snapshot ("example_<i>").
  std::vector<std::size_t> snapshot_epochs(const std::string& id) const;
  ExampleAttention snapshot(const std::string& id, std::size_t epoch, const std::string& example) const;
  std::vector<std::string> map_names(const std::string& id, const std::string& example) const;
  Shape map_shape(const std::string& id, const std::string& example, const std::string& map) const;
  std::optional<Tensor> plot_data(const std::string& id, const std::string& name) const;
  std::optional<Vocabularies> vocabularies(const std::string& id) const;
  std::optional<std::string> summary_table() const;

  // The run's group, for a generic tree listing (`attnlab inspect --run`), and whether an
  // attribute there is the run's whole config (which a listing shows apart).
  std::string run_group(const std::string& id) const;
  static bool is_config_attribute(const std::string& name);
  const Hdf5File& hdf5() const { return file_; }

 private:
  const std::string& known(const std::string& id) const;  // id, or a UsageError listing the runs
  void check_run_order(const ResultsHeader& h) const;      // a FileError when it is not as attnlab writes it
  Hdf5File file_;
  long version_;
};

// ---- checkpoints: the trainer's state and the config it was made with ----
void write_trainer_state(const std::string& path, const TrainerState& state, const std::string& config);
std::string checkpoint_config(const std::string& path);
TrainerState read_trainer_state(const std::string& path);

}  // namespace attn
