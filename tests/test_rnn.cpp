// The RNN layer: parameter names, initial states, errors (padding and batch independence are
// in the conformance suite).
#include <catch2/catch.hpp>

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
