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
  // xp = x W_ih + b_ih [B, 4h]; the equations above run as one fused primitive, attn::lstm_step.
  attn::CellState step(const attn::Var& xp, const attn::CellState& s) override {
    attn::LstmState next = attn::lstm_step(xp, recurrent(s[0]), s[1]);
    return {std::move(next.h), std::move(next.c)};  // {h [B, h], c [B, h]}
  }
  attn::CellState initial_state(std::size_t batch) const override {
    return {zeros(batch), zeros(batch)};
  }
};

}  // namespace

void register_cell_lstm(attn::Registries& r) {
  r.cells.add<Lstm>("lstm", "long short-term memory (PyTorch equations, gates i, f, g, o; state h, c)");
}
