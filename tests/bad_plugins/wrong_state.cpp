// An RNN cell whose step returns a state twice as wide as its initial state ([B, 2h], not
// [B, h]): the RNN must blame the cell, not report a matmul shape error further on.
#include <attnlab/plugin.hpp>

namespace {
class WrongState final : public attn::RnnCell {
 public:
  explicit WrongState(const attn::CellArgs& a)
      : hidden_(a.hidden_size), w_(a.params.param("W", {a.input_size, 2 * a.hidden_size}, attn::Init::uniform(0.1f))) {}
  attn::Var project_inputs(const attn::Var& x) override { return attn::matmul(x, w_); }  // [B, T, 2h]
  attn::CellState step(const attn::Var& xp, const attn::CellState&) override { return {attn::tanh(xp)}; }
  attn::CellState initial_state(std::size_t batch) const override {
    return {attn::constant(attn::Tensor::from_shape({batch, hidden_}))};
  }

 private:
  std::size_t hidden_;
  attn::Var w_;
};
}  // namespace

ATTNLAB_PLUGIN(registry) { registry.cells.add<WrongState>("wrong_state", "steps to a [B, 2h] state (a test plugin)"); }
