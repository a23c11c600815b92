// The registries of one program (or one test): one per plugin kind. Owned by the caller,
// filled by an explicit register_builtins() call and by plugin libraries (plugin_loader.hpp).
#pragma once

#include "attnlab/plugins/attention_mode.hpp"
#include "attnlab/plugins/rnn_cell.hpp"
#include "attnlab/plugins/scoring_function.hpp"
#include "attnlab/registry.hpp"

namespace attn {

struct Registries {
  Registry<ScoringFunction, ScoringArgs> scoring{"scoring function"};
  Registry<RnnCell, CellArgs> cells{"RNN cell"};
  Registry<AttentionMode, ModeArgs> modes{"attention mode"};

  // Applies `f` to each registry (to set origins and to list them uniformly).
  template <class F>
  void each(F&& f) {
    f(scoring);
    f(cells);
    f(modes);
  }
  // Moves every plugin of `staged` here, all or nothing across kinds (duplicates throw).
  void absorb(Registries&& staged) {
    scoring.check_absorb(staged.scoring);
    cells.check_absorb(staged.cells);
    modes.check_absorb(staged.modes);
    scoring.absorb(std::move(staged.scoring));
    cells.absorb(std::move(staged.cells));
    modes.absorb(std::move(staged.modes));
  }
};

// Registers the built-in plugins of plugins/ (dot, scaled_dot, general, additive, gaussian,
// gaussian_learned; rnn, gru, lstm; qkv, qvv, vvv).
void register_builtins(Registries& registries);

}  // namespace attn
