// An outside RNN cell: minGRU (Feng et al. 2024, "Were RNNs All We Needed?"), a GRU whose
// gate and candidate depend on the input only, so all of their work is one matrix product
// over every time step (project_inputs), and a step is elementwise:
//   z_t = sigmoid(x_t W_z + b_z)          update gate        W = [W_z | W_h]  [in, 2h]
//   c_t = x_t W_h + b_h                   candidate          b = [b_z | b_h]  [2h]
//   h_t = (1 - z_t) * h_{t-1} + z_t * c_t
// Walkthrough: docs/writing-a-cell-plugin.md. Built by meson as
// build/plugins/examples/libattnlab-min_gru.so; elsewhere:
//   g++ -std=c++17 -O2 -shared -fPIC min_gru.cpp -o min_gru.so $(pkg-config --cflags --libs attnlab)
#include <attnlab/plugin.hpp>

#include <cmath>

class MinGru final : public attn::RnnCell {
 public:
  explicit MinGru(const attn::CellArgs& a)
      : hidden_(a.hidden_size),
        w_(a.params.param("W", {a.input_size, 2 * hidden_}, attn::Init::uniform(1.0f / std::sqrt(float(hidden_))))),
        b_(a.params.param("b", {2 * hidden_}, attn::Init::zeros())) {}

  attn::Var project_inputs(const attn::Var& x) override {  // [B, T, in] -> [B, T, 2h]
    return attn::matmul(x, w_) + b_;
  }
  attn::CellState step(const attn::Var& xp, const attn::CellState& state) override {  // xp [B, 2h]
    const attn::Var z = attn::sigmoid(attn::slice(xp, 1, 0, hidden_));                // [B, h]
    const attn::Var c = attn::slice(xp, 1, hidden_, 2 * hidden_);                      // [B, h]
    return {(1.0f - z) * state[0] + z * c};                                            // {h}: [B, h]
  }
  attn::CellState initial_state(std::size_t batch) const override {  // {h = 0}: [B, h]
    return {attn::constant(attn::Tensor(xt::zeros<float>({batch, hidden_})))};
  }

 private:
  std::size_t hidden_;
  attn::Var w_, b_;
};

ATTNLAB_PLUGIN(registry) {
  registry.cells.add<MinGru>("min_gru", "minGRU: input-only gates, h = (1 - z) h + z c (example outside plugin)");
}
