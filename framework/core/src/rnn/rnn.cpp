#include "attnlab/rnn/rnn.hpp"

#include <algorithm>
#include <stdexcept>

namespace attn {
namespace {

// One direction of one layer over the whole sequence. Returns outputs [B, T, h] and the final state.
std::pair<Var, CellState> run_direction(const CheckedCell& cell, const Var& x, const ValidLens& lens,
                                        CellState state, bool reverse) {
  const std::size_t batch = x.dim(0), steps = x.dim(1);
  const Var projected = cell.project_inputs(x);  // [B, T, G h], one product
  const std::size_t width = projected.dim(2);
  std::vector<Var> outputs(steps);
  for (std::size_t i = 0; i < steps; ++i) {
    const std::size_t t = reverse ? steps - 1 - i : i;
    const Var xp = reshape(slice(projected, 1, t, t + 1), {batch, width});  // [B, G h]
    CellState next = cell.step(xp, state);
    // Sequences that ended before step t keep their state, and output zeros.
    std::vector<bool> keep(batch, true);
    if (lens)
      for (std::size_t b = 0; b < batch; ++b) keep[b] = static_cast<int>(t) < (*lens)(b);
    if (std::find(keep.begin(), keep.end(), false) != keep.end()) {
      for (std::size_t p = 0; p < next.size(); ++p) next[p] = rows_where(keep, next[p], state[p]);
      outputs[t] = rows_where(keep, cell.output(next), Var());
    } else {
      outputs[t] = cell.output(next);
    }
    state = std::move(next);
    outputs[t] = reshape(outputs[t], {batch, 1, outputs[t].dim(1)});  // [B, 1, h]
  }
  return {concat(outputs, 1), state};  // [B, T, h]
}

}  // namespace

Rnn::Rnn(const PluginKinds& kinds, const ParamScope& scope, const RnnConfig& config)
    : config_(config) {
  if (config.layers == 0 || config.hidden_size == 0 || config.input_size == 0)
    throw std::invalid_argument("RNN needs at least one layer and positive input and hidden sizes");
  for (std::size_t l = 0; l < config.layers; ++l)
    for (std::size_t d = 0; d < directions(); ++d) {
      const std::size_t in = l == 0 ? config.input_size : config.hidden_size * directions();
      const std::string name = "layer" + std::to_string(l) + (d ? "_reverse" : "");
      cells_.push_back(make_cell(kinds, config.cell, scope.child(name), in, config.hidden_size));
    }
}

RnnResult Rnn::operator()(const Var& x, const ValidLens& lens, const std::vector<CellState>& initial,
                          const ForwardContext& context) const {
  if (x.ndim() != 3 || x.dim(2) != config_.input_size)
    throw std::invalid_argument("RNN expects inputs [B, T, " + std::to_string(config_.input_size) +
                                "], got " + shape_str(x.shape()));
  if (!initial.empty() && initial.size() != cells_.size())
    throw std::invalid_argument("RNN: " + std::to_string(initial.size()) + " initial states for " +
                                std::to_string(cells_.size()) + " layers x directions");
  if (lens && (lens->dimension() != 1 || lens->size() != x.dim(0)))
    throw std::invalid_argument("RNN: valid lengths must be [B]");
  RnnResult result;
  Var input = x;
  for (std::size_t l = 0; l < config_.layers; ++l) {
    std::vector<Var> outs;
    for (std::size_t d = 0; d < directions(); ++d) {
      const std::size_t i = l * directions() + d;
      const CheckedCell& cell = cells_[i];
      auto [out, state] = run_direction(cell, input, lens,
                                        initial.empty() ? cell.initial_state(x.dim(0)) : initial[i], d == 1);
      outs.push_back(out);
      result.states.push_back(std::move(state));
    }
    input = outs.size() == 1 ? outs[0] : concat(outs, 2);  // [B, T, dirs * h]
    if (l + 1 < config_.layers) input = context.dropout(input, config_.dropout);  // between layers
  }
  result.outputs = input;
  return result;
}

}  // namespace attn
