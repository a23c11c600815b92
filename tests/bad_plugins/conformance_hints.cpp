// Plugins that tell the conformance suite what to check (attn::ConformanceHints):
//   masks_unless_plain: a softmax normalizer whose option `temperature` (default 1) takes a path
//     that forgets the mask; it declares the option set temperature=2, so `attnlab check` finds
//     the bug that its defaults hide
//   relu_cell: IndRNN (Li et al. 2018), h_t = relu(x_t W + u * h_{t-1} + b), a correct cell with
//     kinks; it declares a finite-difference step of 3e-4
#include <attnlab/plugin.hpp>

#include <cmath>

namespace {
class MasksUnlessPlain final : public attn::Normalizer {
 public:
  explicit MasksUnlessPlain(const attn::NormalizerArgs& a) : temperature_(a.options.get<float>("temperature", 1.0f, 1e-3f, 1e3f)) {}
  static attn::ConformanceHints conformance_hints() { return {{{{"temperature", "2"}}}, 0.0f}; }
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    if (temperature_ == 1.0f) return attn::masked_softmax(scores, lens);
    return attn::softmax(scores * (1.0f / temperature_));  // the bug: every key weighed
  }

 private:
  float temperature_;
};

class ReluCell final : public attn::RnnCell {
 public:
  explicit ReluCell(const attn::CellArgs& a)
      : hidden_(a.hidden_size),
        w_(a.params.param("W", {a.input_size, hidden_}, attn::Init::uniform(1.0f / std::sqrt(float(hidden_))))),
        u_(a.params.param("u", {hidden_}, attn::Init::uniform(1.0f))),
        b_(a.params.param("b", {hidden_}, attn::Init::zeros())) {}
  static attn::ConformanceHints conformance_hints() { return {{}, 3e-4f}; }
  attn::Var project_inputs(const attn::Var& x) override { return attn::matmul(x, w_) + b_; }
  attn::CellState step(const attn::Var& xp, const attn::CellState& state) override { return {attn::relu(xp + u_ * state[0])}; }
  attn::CellState initial_state(std::size_t batch) const override {
    return {attn::constant(attn::Tensor(xt::zeros<float>({batch, hidden_})))};
  }

 private:
  std::size_t hidden_;
  attn::Var w_, u_, b_;
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.normalizers.add<MasksUnlessPlain>("masks_unless_plain", "forgets the mask unless temperature is 1 (a test plugin)");
  registry.cells.add<ReluCell>("relu_cell", "IndRNN, h = relu(x W + u h + b) (a test plugin)");
}
