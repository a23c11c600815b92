// The registries of one program (or one test), one per kind: the plugin kinds layers are built
// from (plugins/plugin_kinds.hpp), and models, datasets and optimizers. Owned by the caller
// (no global state), filled by explicit calls: register_core_builtins() here, the lab's
// register_builtins() for the built-in plugins of plugins/, and plugin libraries
// (plugin_loader.hpp).
#pragma once

#include "attnlab/data/dataset.hpp"
#include "attnlab/models/model.hpp"
#include "attnlab/plugins/plugin_kinds.hpp"
#include "attnlab/training/optimizer.hpp"

namespace attn {

struct Registries : PluginKinds {
  Registry<Model, ModelArgs> models{"model"};
  Registry<DatasetSource, DatasetArgs> datasets{"dataset"};
  Registry<Optimizer, OptimizerArgs> optimizers{"optimizer"};

  // Applies `f` to each registry (to set origins and to list them uniformly).
  template <class F>
  void each(F&& f) {
    f(scoring), f(cells), f(modes), f(normalizers), f(positional), f(models), f(datasets), f(optimizers);
  }
  template <class F>
  void each(F&& f) const {
    f(scoring), f(cells), f(modes), f(normalizers), f(positional), f(models), f(datasets), f(optimizers);
  }
  // Moves every plugin of `staged` here, all or nothing across kinds (duplicates throw).
  void absorb(Registries&& staged) {
    scoring.check_absorb(staged.scoring), cells.check_absorb(staged.cells), modes.check_absorb(staged.modes);
    normalizers.check_absorb(staged.normalizers), positional.check_absorb(staged.positional);
    models.check_absorb(staged.models), datasets.check_absorb(staged.datasets);
    optimizers.check_absorb(staged.optimizers);
    scoring.absorb(std::move(staged.scoring)), cells.absorb(std::move(staged.cells));
    modes.absorb(std::move(staged.modes)), normalizers.absorb(std::move(staged.normalizers));
    positional.absorb(std::move(staged.positional));
    models.absorb(std::move(staged.models));
    datasets.absorb(std::move(staged.datasets)), optimizers.absorb(std::move(staged.optimizers));
  }
};

// Registers the core's own models (nadaraya_watson, seq2seq, transformer), datasets
// (regression1d, sequence_task, parallel_corpus) and optimizers (sgd, adam).
void register_core_builtins(Registries& registries);

}  // namespace attn
