// RNN cell `gru`, PyTorch's nn.GRUCell equations and gate order (r, z, n):
//   r = sigmoid(x W_ir + b_ir + h W_hr + b_hr)         reset gate
//   z = sigmoid(x W_iz + b_iz + h W_hz + b_hz)         update gate
//   n = tanh(x W_in + b_in + r * (h W_hn + b_hn))      candidate
//   h' = (1 - z) * n + z * h
// W_ih [in, 3h] = [W_ir | W_iz | W_in], W_hh [h, 3h], b_ih, b_hh [3h].
#include <attnlab/plugin.hpp>

namespace {

class Gru final : public attn::GatedCell {
 public:
  explicit Gru(const attn::CellArgs& a) : GatedCell(a, 3) {}
  attn::CellState step(const attn::Var& xp, const attn::CellState& s) override {
    const attn::Var& h = s[0];
    const attn::Var hp = recurrent(h);                                  // [B, 3h]
    const attn::Var r = attn::sigmoid(gate(xp, 0) + gate(hp, 0));
    const attn::Var z = attn::sigmoid(gate(xp, 1) + gate(hp, 1));
    const attn::Var n = attn::tanh(gate(xp, 2) + r * gate(hp, 2));
    return {(1.0f - z) * n + z * h};                                   // [B, h]
  }
};

}  // namespace

void register_cell_gru(attn::Registries& r) {
  r.cells.add<Gru>("gru", "gated recurrent unit (PyTorch equations, gates r, z, n)");
}
