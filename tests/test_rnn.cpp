// The RNN layer: parameter names, initial states, errors (padding and batch independence are
// in the conformance suite).
#include <catch2/catch.hpp>

#include <cmath>

#include "lab/builtins.hpp"
#include "attnlab/rnn/rnn.hpp"

using namespace attn;

TEST_CASE("RNN parameters are named per layer and direction with PyTorch's gate widths", "[rnn]") {
  Registries r;
  register_builtins(r);
  ParamStore store;
  Rng rng(1);
  RnnConfig config;
  config.cell = {"lstm", {}};
  config.input_size = 3;
  config.hidden_size = 4;
  config.layers = 2;
  config.bidirectional = true;
  const Rnn rnn(r, ParamScope(store, rng, "encoder.rnn"), config);
  CHECK(store.get("encoder.rnn.layer0.W_ih").shape() == Shape{3, 16});
  CHECK(store.get("encoder.rnn.layer0_reverse.W_hh").shape() == Shape{4, 16});
  CHECK(store.get("encoder.rnn.layer1.W_ih").shape() == Shape{8, 16});  // fed both directions
  CHECK(store.size() == 16);
}

TEST_CASE("an RNN continues from given initial states", "[rnn]") {
  Registries r;
  register_builtins(r);
  ParamStore store;
  Rng rng(2);
  RnnConfig config;
  config.cell = {"gru", {}};
  config.input_size = 2;
  config.hidden_size = 3;
  const Rnn rnn(r, ParamScope(store, rng), config);
  Tensor xs = Tensor::from_shape({1, 6, 2});
  for (float& v : xs) v = rng.normal();
  const Var x = constant(xs);
  const RnnResult whole = rnn(x, std::nullopt);
  const RnnResult first = rnn(slice(x, 1, 0, 4), std::nullopt);
  const RnnResult rest = rnn(slice(x, 1, 4, 6), std::nullopt, first.states);
  CHECK(xt::allclose(rest.states[0][0].value(), whole.states[0][0].value(), 1e-6, 1e-6));
  CHECK_THROWS_WITH(rnn(constant(xt::zeros<float>({1, 2, 5})), std::nullopt), Catch::Contains("[B, T, 2]"));
}

TEST_CASE("cell options: a cell that takes none reports any as unknown", "[rnn][options]") {
  Registries r;
  register_builtins(r);
  ParamStore store;
  Rng rng(3);
  RnnConfig config;
  config.cell = {"gru", {}};
  config.cell.options.set("init", "kaiming", "spec.yaml:4:11");
  config.input_size = config.hidden_size = 2;
  CHECK_THROWS_WITH(Rnn(r, ParamScope(store, rng), config),
                    "spec.yaml:4:11: unknown option 'init' for RNN cell 'gru' (it takes no options)");
}

TEST_CASE("a NaN in a fused step's input stays NaN in its output (it is not clamped away)", "[rnn][reliability]") {
  // hidden 37: two AVX-512 vectors and a scalar tail; the NaN goes into each in turn
  const std::size_t hidden = 37;
  const std::size_t at = GENERATE(5, 36);
  const auto input = [&](std::size_t gates, std::size_t nan_gate) {
    Tensor t = Tensor::from_shape({1, gates * hidden});
    for (std::size_t i = 0; i < t.size(); ++i) t(0, i) = 0.01f * static_cast<float>(i % 11);
    t(0, nan_gate * hidden + at) = std::nanf("");
    return constant(t);
  };
  // xt::zeros, not from_shape * 0: unwritten memory may hold NaN, and 0 * NaN is NaN
  const Var zeros3 = constant(xt::zeros<float>({std::size_t{1}, 3 * hidden})), zeros4 = constant(xt::zeros<float>({std::size_t{1}, 4 * hidden}));
  const Var h = constant(xt::zeros<float>({std::size_t{1}, hidden}));
  CHECK(std::isnan(rnn_step(input(1, 0), h).value()(0, at)));
  CHECK(std::isnan(gru_step(input(3, 2), zeros3, h).value()(0, at)));  // candidate n = tanh(...)
  const LstmState s = lstm_step(input(4, 2), zeros4, h);              // cell input g = tanh(...)
  CHECK(std::isnan(s.c.value()(0, at)));
  CHECK(std::isnan(s.h.value()(0, at)));
}
