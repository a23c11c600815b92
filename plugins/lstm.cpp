// RNN cell `lstm`, PyTorch's nn.LSTMCell equations and gate order (i, f, g, o):
//   [i, f, g, o] = x W_ih + b_ih + h W_hh + b_hh
//   c' = sigmoid(f) * c + sigmoid(i) * tanh(g)
//   h' = sigmoid(o) * tanh(c')
// State {h, c}. W_ih [in, 4h], W_hh [h, 4h], b_ih, b_hh [4h].
#include <attnlab/plugin.hpp>

namespace {

class Lstm final : public attn::GatedCell {
 public:
  explicit Lstm(const attn::CellArgs& a) : GatedCell(a, 4) {}
  attn::CellState step(const attn::Var& xp, const attn::CellState& s) override {
    const attn::Var g = xp + recurrent(s[0]);                          // [B, 4h]
    const attn::Var c = attn::sigmoid(gate(g, 1)) * s[1] +
                        attn::sigmoid(gate(g, 0)) * attn::tanh(gate(g, 2));
    return {attn::sigmoid(gate(g, 3)) * attn::tanh(c), c};             // {h [B, h], c [B, h]}
  }
  attn::CellState initial_state(std::size_t batch) const override {
    return {zeros(batch), zeros(batch)};
  }
};

}  // namespace

void register_cell_lstm(attn::Registries& r) {
  r.cells.add<Lstm>("lstm", "long short-term memory (PyTorch equations, gates i, f, g, o; state h, c)");
}
