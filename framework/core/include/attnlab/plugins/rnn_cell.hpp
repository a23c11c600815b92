// Plugin kind 2: recurrent cells, one time step at a time.
//
// The framework runs the time loop (layers, directions, padding). A cell splits its work the
// way Marian does: project_inputs() computes the input part of every gate for ALL time steps
// in one matrix product, outside the loop; step() adds the recurrent part for one step.
#pragma once

#include <cstddef>
#include <vector>

#include "attnlab/autodiff/var.hpp"
#include "attnlab/nn/params.hpp"
#include "attnlab/options.hpp"

namespace attn {

struct CellArgs {
  ParamScope params;
  const Options& options;
  std::size_t input_size;
  std::size_t hidden_size;
};

// The state a cell carries between steps: {h} for rnn and gru, {h, c} for lstm.
using CellState = std::vector<Var>;

class RnnCell {
 public:
  virtual ~RnnCell() = default;
  // x [B, T, input_size] -> [B, T, gate_width]: the input contribution of every step at once.
  virtual Var project_inputs(const Var& x) = 0;
  // projected_t [B, gate_width] (one step of project_inputs), state -> next state.
  virtual CellState step(const Var& projected_t, const CellState& state) = 0;
  // The state before the first step: zeros of [batch, hidden_size] for every part.
  virtual CellState initial_state(std::size_t batch) const = 0;
  // The part of the state that is the cell's output (h).
  virtual Var output(const CellState& state) const { return state.at(0); }
};

}  // namespace attn
