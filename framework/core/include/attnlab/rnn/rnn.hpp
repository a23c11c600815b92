// A multi-layer, optionally bidirectional RNN over padded sequences, with any registered cell.
//
// For each layer and direction: the cell projects the inputs of ALL time steps in one product
// (project_inputs), then the time loop runs only the recurrent part (step). With valid
// lengths, a sequence's state stops changing after its last valid step (so the final state is
// the state at step len-1, and the reverse direction starts at step len-1), and its outputs
// past the end are 0 — PyTorch's packed-sequence semantics. Without them, every step counts.
// Dropout is applied between layers (not after the last), as PyTorch does.
#pragma once

#include <memory>
#include <vector>

#include "attnlab/nn/forward_context.hpp"
#include "attnlab/plugins/checked_plugins.hpp"

namespace attn {

struct RnnConfig {
  PluginChoice cell{"gru", {}, ""};
  std::size_t input_size = 0;
  std::size_t hidden_size = 0;
  std::size_t layers = 1;
  bool bidirectional = false;
  float dropout = 0.0f;  // between layers
};

struct RnnResult {
  Var outputs;                    // top layer, [B, T, directions * hidden]
  std::vector<CellState> states;  // final state of layer l, direction d at [l * directions + d]
};

class Rnn {
 public:
  Rnn(const PluginKinds& kinds, const ParamScope& scope, const RnnConfig& config);
  // x [B, T, input_size]; lens [B] or none; `initial` empty (zeros) or one state per layer*dir.
  RnnResult operator()(const Var& x, const ValidLens& lens, const std::vector<CellState>& initial = {},
                       const ForwardContext& context = ForwardContext::evaluation()) const;
  std::size_t directions() const { return config_.bidirectional ? 2 : 1; }
  const RnnConfig& config() const { return config_; }

 private:
  RnnConfig config_;
  std::vector<CheckedCell> cells_;  // [layer * directions + direction]
};

}  // namespace attn
