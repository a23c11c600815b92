#include "attnlab/experiment/run.hpp"

#include <chrono>
#include <set>

#include "attnlab/attention/attention.hpp"

namespace attn {
namespace {

std::string where_of(const RunPlan& plan, const std::string& key) {
  const auto it = plan.values.find(key);
  return it == plan.values.end() ? "" : it->second.where;
}

}  // namespace

// make_plugin checks that the plugin read every option it was given (unknown ones are errors).
// Errors without a location of their own are attributed to the dataset's or the model's name.
std::unique_ptr<RunParts> build_run(const RunPlan& plan, const Registries& registries, const std::string& spec_dir) {
  auto parts = std::make_unique<RunParts>();
  const PluginChoice dataset{plan.dataset, plan.dataset_options, where_of(plan, "dataset.name")};
  try {
    parts->source = make_plugin(registries.datasets, dataset, DatasetArgs{dataset.options, spec_dir});
    Rng data_rng = Rng(plan.seed).derive("data");
    parts->data = parts->source->load(data_rng);
  } catch (const OptionError&) {
    throw;
  } catch (const PluginFault&) {
    throw;
  } catch (const std::exception& e) {
    throw OptionError(dataset.where, e.what());
  }
  const PluginChoice model{plan.model, plan.model_options, where_of(plan, "model.name")};
  try {
    Rng init_rng = Rng(plan.seed).derive("init");
    parts->model = make_plugin(registries.models, model,
                               ModelArgs{registries, ParamScope(parts->params, init_rng), model.options, parts->data});
  } catch (const OptionError&) {
    throw;
  } catch (const PluginFault&) {
    throw;
  } catch (const std::exception& e) {
    throw OptionError(model.where, e.what());
  }
  return parts;
}

RunResult execute_run(const RunPlan& plan, const Registries& registries, const std::string& spec_dir,
                      const std::function<bool(const EpochRecord&)>& on_epoch, const RunCheckpoint* checkpoint) {
  RunResult result;
  const auto start = std::chrono::steady_clock::now();
  try {
    const auto parts = build_run(plan, registries, spec_dir);
    Trainer trainer(*parts->model, parts->params, registries, plan.training, plan.seed);
    if (checkpoint) result.resumed_from_epoch = load_checkpoint(trainer, *checkpoint);
    auto saved_at = std::chrono::steady_clock::now();
    const RunStatus status = trainer.run([&](const EpochRecord& e) {
      const bool go_on = !on_epoch || on_epoch(e);
      const bool due = checkpoint && checkpoint->every_seconds > 0 && e.epoch < plan.training.epochs &&
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - saved_at).count() >= checkpoint->every_seconds;
      if (checkpoint && (!go_on || due)) {
        save_checkpoint(trainer, *checkpoint);
        saved_at = std::chrono::steady_clock::now();
      }
      return go_on;
    });
    result.status = to_string(status);
    result.history = trainer.history();
    if (status != RunStatus::diverged && status != RunStatus::interrupted) {
      result.metrics = parts->model->evaluate(true);
      result.attention = parts->model->record_attention(plan.record_attention);
      result.plot_data = parts->model->plot_data();
    }
    if (!result.history.empty()) result.metrics["train_loss"] = result.history.back().train_loss;
    for (const auto& [name, var] : parts->params.items()) result.params.emplace_back(name, var.value());
    if (const auto* seq = std::get_if<SequenceData>(&parts->data)) {
      result.src_vocab = seq->src_vocab.tokens();
      result.tgt_vocab = seq->tgt_vocab.tokens();
      result.num_steps = seq->num_steps;
    }
  } catch (const std::exception& e) {
    result.status = "failed";
    result.error = e.what();
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<Diagnostic> validate_runs(const Spec& spec, const Registries& registries) {
  std::vector<Diagnostic> out;
  std::set<std::string> seen;
  auto report = [&](const std::string& where, const std::string& message) {
    if (seen.insert(where + "\n" + message).second) out.push_back({where, message});
  };
  std::set<std::string> checked;  // sweep points that differ only in the seed are checked once
  for (const RunPlan& plan : spec.runs) {
    std::string key;
    for (const auto& [k, v] : plan.values)
      if (k != "seed") key += k + "=" + (v.is_list ? v.where : v.text()) + "\n";
    if (!checked.insert(key).second) continue;
    try {
      const auto parts = build_run(plan, registries, spec.directory);
      const auto named = parts->params.items();
      make_plugin(registries.optimizers, plan.training.optimizer,
                  OptimizerArgs{plan.training.optimizer.options, named, plan.training.lr});
      if (!plan.training.early_stopping.empty()) {
        const Metrics m = parts->model->evaluate(false);  // what every evaluated epoch reports
        if (!m.count(plan.training.early_stopping)) {
          std::vector<std::string> names;
          for (const auto& kv : m) names.push_back(kv.first);
          report(where_of(plan, "training.early_stopping.metric"),
                 unknown_name_message("metric", plan.training.early_stopping, names) + " (what model '" + plan.model +
                     "' reports every evaluated epoch)");
        }
      }
    } catch (const OptionError& e) {
      report(e.where(), std::string(e.what()).substr(e.where().empty() ? 0 : e.where().size() + 2));
    } catch (const PluginFault&) {
      // A misbehaving plugin is not a problem of the spec: the runs using it will fail alone.
    } catch (const std::exception& e) {
      report(spec.path, std::string("run '") + plan.id + "': " + e.what());
    }
  }
  return out;
}

}  // namespace attn
