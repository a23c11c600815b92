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
  // xp = x W_ih + b_ih [B, 3h] (projected for all steps at once); the equations above run
  // as one fused primitive, attn::gru_step.
  attn::CellState step(const attn::Var& xp, const attn::CellState& s) override {
    return {attn::gru_step(xp, recurrent(s[0]), s[0])};  // [B, h]
  }
};

}  // namespace

void register_cell_gru(attn::Registries& r) {
  r.cells.add<Gru>("gru", "gated recurrent unit (PyTorch equations, gates r, z, n)");
}
