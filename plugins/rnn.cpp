// RNN cell `rnn` (Elman, tanh), PyTorch's nn.RNNCell equations:
//   h' = tanh(x W_ih + b_ih + h W_hh + b_hh)
// W_ih [in, h], W_hh [h, h] (PyTorch's weight_ih / weight_hh transposed), b_ih, b_hh [h].
#include <attnlab/plugin.hpp>

namespace {

class Rnn final : public attn::GatedCell {
 public:
  explicit Rnn(const attn::CellArgs& a) : GatedCell(a, 1) {}
  attn::CellState step(const attn::Var& xp, const attn::CellState& s) override {
    return {attn::rnn_step(xp, recurrent(s[0]))};  // [B, h], one fused primitive
  }
};

}  // namespace

void register_cell_rnn(attn::Registries& r) {
  r.cells.add<Rnn>("rnn", "Elman RNN: h' = tanh(x W_ih + b_ih + h W_hh + b_hh)");
}
