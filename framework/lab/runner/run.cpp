#include "lab/runner/run.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "attnlab/models/sequence_model.hpp"
#include "lab/runner/length_evaluation.hpp"

namespace attn {
namespace {

// Runs `build`; a problem without a place of its own (a dataset file that does not read, a
// model that refuses its data) becomes a SpecError at `where` (the dataset's or model's name).
// A misbehaving outside plugin stays a PluginFault: it is not a problem of the spec.
template <class Build>
void attributing_errors_to(const std::string& where, Build&& build) {
  try {
    build();
  } catch (const SpecError& e) {  // one with no place of its own is put at the plugin's name
    if (e.where().empty()) throw SpecError(where, e.message());
    throw;
  } catch (const PluginFault&) {
    throw;
  } catch (const std::bad_alloc&) {  // (never a bare "std::bad_alloc")
    throw SpecError(where, "ran out of memory reading the data or building the model: the machine could not give what this asks for; "
                           "make the data or the model smaller");
  } catch (const std::exception& e) {
    throw SpecError(where, e.what());
  }
}

// The files a dataset read: each option it asked for whose value (the spec's, or the default)
// names a regular file where the dataset looks for it.
void add_data_files(const RunPlan& plan, const std::vector<Options::Asked>& asked, const std::string& spec_dir,
                    std::vector<std::string>& files) {
  const std::vector<std::string> given = plan.dataset_options.keys();
  for (const Options::Asked& a : asked) {
    const bool in_spec = std::find(given.begin(), given.end(), a.key) != given.end();
    const std::string value = in_spec ? plan.dataset_options.text(a.key) : a.fallback;
    if (value.empty()) continue;
    const std::string path = resolve_data_path(value, spec_dir);
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) && std::find(files.begin(), files.end(), path) == files.end()) files.push_back(path);
  }
}

// What the finished run leaves besides its history: final metrics, maps, parameters, data.
void collect_results(const RunPlan& plan, const RunParts& parts, RunRecord& r) {
  if (r.status != RunStatus::diverged && r.status != RunStatus::interrupted) {
    const NoGrad no_grad;  // evaluation keeps no graph
    r.metrics = parts.model->evaluate(true);
    ProbeLook look = look_at_probe(*parts.model, plan.training.attention.examples, plan.training.attention.metrics);
    r.attention = std::move(look.kept);
    r.attention_metrics = std::move(look.metrics);
    for (const auto& [name, value] : attention_metric_means(r.attention_metrics)) r.metrics[name] = value;
    r.plot_data = parts.model->plot_data();
  }
  if (!r.history.empty()) r.metrics["train_loss"] = r.history.back().train_loss;
  for (const auto& [name, var] : parts.params.items()) r.params.emplace_back(name, var.value());
  const auto* seq = std::get_if<SequenceData>(&parts.data);
  if (seq && seq->src_dim == 0) {  // typed sentences can be decoded (attnlab translate)
    r.src_vocab = seq->src_vocab.tokens();
    r.tgt_vocab = seq->tgt_vocab.tokens();
    r.num_steps = seq->num_steps;
  }
}

// record.attention names probe examples; the data decides how many there are. (The default,
// the first three, keeps as many as the data has: regression data has one.)
void check_recorded_examples(const RunPlan& plan, const Data& data, std::vector<Diagnostic>& out) {
  if (!plan.values.count("record.attention")) return;
  const std::size_t available = probe_examples(data);
  for (std::size_t e : plan.training.attention.examples)
    if (e >= available) {
      out.push_back({plan.where("record.attention"),
                     "'record.attention' names example " + std::to_string(e) + ", but the probe set of dataset '" + plan.dataset +
                         "' has " + (available == 0 ? std::string("none") : std::to_string(available) + " (0 to " + std::to_string(available - 1) + ")")});
      return;
    }
}

// The metrics at other lengths; a failure there leaves the trained run as it is, with the
// reason in its error (what was measured before it is kept). False when interrupted.
bool evaluate_lengths_into(RunRecord& r, const RunPlan& plan, const RunParts& parts, const Registries& registries,
                           const std::string& spec_dir, const MemoryLimit& limit, const std::function<bool(const std::string&)>& stage) {
  try {
    return evaluate_at_lengths(plan, parts, registries, spec_dir, limit, stage, r.length_metrics);
  } catch (const std::bad_alloc&) {
    r.error = "evaluation at other lengths stopped at length " + std::to_string(plan.lengths.at(r.length_metrics.size())) +
              ": the machine could not give the memory it asked for; evaluate at shorter lengths (evaluation.lengths)";
  } catch (const std::exception& e) {
    r.error = "evaluation at other lengths stopped: " + std::string(e.what());
  }
  return true;
}

}  // namespace

// make_plugin checks that the plugin read every option it was given (unknown ones are errors).
std::unique_ptr<RunParts> build_run(const RunPlan& plan, const Registries& registries, const std::string& spec_dir,
                                    const MemoryLimit& limit) {
  auto parts = std::make_unique<RunParts>();
  const PluginChoice dataset{plan.dataset, plan.dataset_options, plan.where("dataset.name")};
  attributing_errors_to(dataset.where, [&] {
    parts->source = make_plugin(registries.datasets, dataset, DatasetArgs{dataset.options, spec_dir});
    parts->data_bytes = check_data_fits(plan, *parts->source, limit);
    parts->dataset_read = dataset.options.asked();
  });
  // a data file that does not read is a problem of the file the spec (or --set) names
  const std::string file_where = plan.where("dataset.path");
  attributing_errors_to(file_where.empty() ? dataset.where : file_where, [&] {
    Rng data_rng = Rng(plan.seed).derive("data");
    parts->data = parts->source->load(data_rng);
  });
  const PluginChoice model{plan.model, plan.model_options, plan.where("model.name")};
  parts->params.limit_kept_bytes(model_allowance(limit, parts->data_bytes));
  attributing_errors_to(model.where, [&] {
    Rng init_rng = Rng(plan.seed).derive("init");
    try {
      parts->model = make_plugin(registries.models, model,
                                 ModelArgs{registries, ParamScope(parts->params, init_rng), model.options, parts->data});
      parts->model_read = model.options.asked();
    } catch (const MemoryLimitError& e) {
      throw memory_limit_at_key(plan, e, limit);
    }
  });
  return parts;
}

RunRecord planned_record(const RunPlan& plan) {
  RunRecord r;
  r.id = plan.id;
  r.config = plan.config_yaml();
  r.point = plan.sweep_point;
  r.overrides = plan.overrides();
  r.seed = plan.seed;
  r.index = plan.index;
  return r;
}

RunRecord execute_run(const RunPlan& plan, const Registries& registries, const std::string& spec_dir,
                      const RunObserver& observer, const RunCheckpoint* checkpoint, const MemoryLimit& limit) {
  RunRecord r = planned_record(plan);
  const auto start = std::chrono::steady_clock::now();
  try {
    const auto parts = build_run(plan, registries, spec_dir, limit);
    Trainer trainer(*parts->model, parts->params, registries, plan.training, plan.seed);
    if (observer.started) observer.started(parts->model->trainable() ? trainer.epochs() : 0);
    if (checkpoint) r.resumed_from_epoch = load_checkpoint(trainer, *checkpoint);
    auto saved_at = std::chrono::steady_clock::now();
    r.status = trainer.run([&](const EpochRecord& e) {
      const bool go_on = !observer.epoch || observer.epoch(e);
      const bool due = checkpoint && checkpoint->every_seconds > 0 && e.epoch < trainer.epochs() &&
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - saved_at).count() >= checkpoint->every_seconds;
      if (checkpoint && (!go_on || due)) {
        save_checkpoint(trainer, *checkpoint);
        saved_at = std::chrono::steady_clock::now();
      }
      return go_on;
    });
    r.history = trainer.history();
    collect_results(plan, *parts, r);
    if (succeeded(r.status) && !evaluate_lengths_into(r, plan, *parts, registries, spec_dir, limit, observer.stage)) {
      r.status = RunStatus::interrupted;  // trained: --resume reads it from the checkpoint and evaluates again
      if (checkpoint) save_checkpoint(trainer, *checkpoint);
    }
  } catch (const std::bad_alloc&) {
    r.status = RunStatus::failed;
    r.error = "ran out of memory: the machine could not give what the run asked for (more than its estimate at "
              "validation, or other programs took it); run fewer at once (--threads) or make the run smaller";
  } catch (const std::exception& e) {
    r.status = RunStatus::failed;
    r.error = e.what();
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

namespace {

// The early-stopping metric must be one the model reports every evaluated epoch, and patience
// needs a metric to watch.
void check_early_stopping_metric(const RunPlan& plan, Model& model, std::vector<Diagnostic>& out) {
  if (plan.training.early_stopping.empty() && plan.values.count("training.early_stopping.patience"))
    out.push_back({plan.where("training.early_stopping.patience"),
                   "'training.early_stopping.patience' is read only with 'training.early_stopping.metric' (the metric to "
                   "watch); set the metric or remove it"});
  if (plan.training.early_stopping.empty()) return;
  const NoGrad no_grad;
  const Metrics m = epoch_metrics(model, plan.training.decode_metrics);
  if (m.count(plan.training.early_stopping)) return;
  std::vector<std::string> names;
  for (const auto& kv : m) names.push_back(kv.first);
  out.push_back({plan.where("training.early_stopping.metric"),
                 unknown_name_message("metric", plan.training.early_stopping, names) + " (what model '" + plan.model +
                     "' reports every evaluated epoch)"});
}

// Keys that would change nothing for this run are refused, once, at the first key that asks:
// training options the model's loss does not honour, decoding options for a model that decodes
// no sentences (and, in check_early_stopping_metric, patience without a metric). Only here,
// where a spec is to run: the stored configs that `translate` and `probe` read back go through
// the spec reader alone, so results files written before these checks still read.
void check_model_takes_training(const RunPlan& plan, const Model& model, std::vector<Diagnostic>& out) {
  const auto refuse = [&](const std::vector<std::string>& keys, const std::string& why) {
    std::string written, first;
    for (const std::string& key : keys) {
      if (!plan.values.count(key)) continue;
      if (written.empty()) first = plan.where(key);
      written += (written.empty() ? "'" : ", '") + key + "'";
    }
    if (!written.empty()) out.push_back({first, "model '" + plan.model + "' " + why + "; remove " + written});
  };
  if (plan.training.label_smoothing > 0.0f && !model.takes_label_smoothing())
    refuse({"training.label_smoothing"}, "is not trained with a cross-entropy, so it takes no label smoothing");
  if (plan.training.teacher_forcing.samples() && !model.takes_teacher_forcing())
    refuse({"training.teacher_forcing", "training.scheduled_sampling.decay", "training.scheduled_sampling.k",
            "training.scheduled_sampling.slope", "training.scheduled_sampling.min"},
           "takes no teacher forcing below 1 and no scheduled sampling (only seq2seq does: the Transformer's decoder "
           "reads the whole gold prefix at once)");
  if (!dynamic_cast<const SequenceModel*>(&model))
    refuse({"evaluation.beam", "evaluation.alpha", "evaluation.max_len"},
           "decodes no sentences, so the decoding keys of `attnlab translate` change nothing");
}

}  // namespace

std::vector<Diagnostic> validate_runs(const Spec& spec, const Registries& registries, const MemoryLimit& limit,
                                      RunsFootprint* footprint) {
  std::vector<Diagnostic> found;
  for (const RunPlan& plan : spec.runs) {  // every sweep point, built as its run builds it
    try {
      const auto parts = build_run(plan, registries, spec.directory, limit);
      if (footprint) {
        footprint->results_bytes += sizeof(float) * static_cast<double>(parts->params.num_values()) + 64 * 1024.0;
        add_data_files(plan, parts->dataset_read, spec.directory, footprint->data_files);
      }
      check_training_fits(plan, *parts->model, parts->data_bytes, parts->params.kept_bytes(), limit, found);
      make_plugin(registries.optimizers, plan.training.optimizer,
                  OptimizerArgs{plan.training.optimizer.options, parts->params.items()});
      check_early_stopping_metric(plan, *parts->model, found);
      check_model_takes_training(plan, *parts->model, found);
      check_recorded_examples(plan, parts->data, found);
      check_lengths(plan, *parts, registries, spec.directory, limit, found);
    } catch (const SpecError& e) {
      found.push_back({e.where(), e.message()});
    } catch (const std::exception& e) {  // a plugin that misbehaves when the model is evaluated
      found.push_back({spec.path, std::string("run '") + plan.id + "': " + e.what()});
    }
  }
  std::vector<Diagnostic> out;  // each problem once
  std::set<std::string> seen;
  for (const Diagnostic& d : found)
    if (seen.insert(d.where + "\n" + d.message).second) out.push_back(d);
  return out;
}

}  // namespace attn
