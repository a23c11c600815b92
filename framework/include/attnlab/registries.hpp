// The registries of one program (or one test): one per plugin kind. Owned by the caller,
// filled by an explicit register_builtins() call and by plugin libraries (plugin_loader.hpp).
// The three kinds users write most are scoring functions, RNN cells and attention modes;
// models, datasets and optimizers are registered by the same mechanism.
#pragma once

#include "attnlab/data/dataset.hpp"
#include "attnlab/models/model.hpp"
#include "attnlab/plugins/attention_mode.hpp"
#include "attnlab/plugins/rnn_cell.hpp"
#include "attnlab/plugins/scoring_function.hpp"
#include "attnlab/registry.hpp"
#include "attnlab/training/optimizer.hpp"

namespace attn {

struct Registries {
  Registry<ScoringFunction, ScoringArgs> scoring{"scoring function"};
  Registry<RnnCell, CellArgs> cells{"RNN cell"};
  Registry<AttentionMode, ModeArgs> modes{"attention mode"};
  Registry<Model, ModelArgs> models{"model"};
  Registry<DatasetSource, DatasetArgs> datasets{"dataset"};
  Registry<Optimizer, OptimizerArgs> optimizers{"optimizer"};

  // Applies `f` to each registry (to set origins and to list them uniformly).
  template <class F>
  void each(F&& f) {
    f(scoring);
    f(cells);
    f(modes);
    f(models);
    f(datasets);
    f(optimizers);
  }
  template <class F>
  void each(F&& f) const {
    f(scoring);
    f(cells);
    f(modes);
    f(models);
    f(datasets);
    f(optimizers);
  }
  // Moves every plugin of `staged` here, all or nothing across kinds (duplicates throw).
  void absorb(Registries&& staged) {
    scoring.check_absorb(staged.scoring);
    cells.check_absorb(staged.cells);
    modes.check_absorb(staged.modes);
    models.check_absorb(staged.models);
    datasets.check_absorb(staged.datasets);
    optimizers.check_absorb(staged.optimizers);
    scoring.absorb(std::move(staged.scoring));
    cells.absorb(std::move(staged.cells));
    modes.absorb(std::move(staged.modes));
    models.absorb(std::move(staged.models));
    datasets.absorb(std::move(staged.datasets));
    optimizers.absorb(std::move(staged.optimizers));
  }
};

// Registers the built-in plugins of plugins/ (dot, scaled_dot, general, additive, gaussian,
// gaussian_learned; rnn, gru, lstm; qkv, qvv, vvv) and the built-in models, datasets and
// optimizers of framework/src/{models,data,training}.
void register_builtins(Registries& registries);

}  // namespace attn
