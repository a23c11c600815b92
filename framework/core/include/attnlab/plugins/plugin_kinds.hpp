// The registries of the plugin kinds attention and RNN layers are assembled from: scoring
// functions, RNN cells, attention modes, normalizers and positional schemes. A layer takes a `const PluginKinds&`, so it sees
// these interfaces and nothing above them (models, datasets, optimizers: registries.hpp).
#pragma once

#include "attnlab/plugins/attention_mode.hpp"
#include "attnlab/plugins/normalizer.hpp"
#include "attnlab/plugins/positional_scheme.hpp"
#include "attnlab/plugins/rnn_cell.hpp"
#include "attnlab/plugins/scoring_function.hpp"
#include "attnlab/registry.hpp"

namespace attn {

struct PluginKinds {
  Registry<ScoringFunction, ScoringArgs> scoring{"scoring function"};
  Registry<RnnCell, CellArgs> cells{"RNN cell"};
  Registry<AttentionMode, ModeArgs> modes{"attention mode"};
  Registry<Normalizer, NormalizerArgs> normalizers{"normalizer"};
  Registry<PositionalScheme, PositionalArgs> positional{"positional scheme"};
};

}  // namespace attn
