// The conformance checks of an RNN cell, through a 2-layer bidirectional RNN (conformance.hpp).
#include "attnlab/rnn/rnn.hpp"
#include "lab/conformance/conformance.hpp"

namespace attn {
namespace {

// Outputs past a sequence's end are 0; each sequence alone, unpadded, gives the same outputs and
// final states (padding and batch independence).
void padding_and_batch(Checker& c, const Rnn& rnn, const Var& x, const IntTensor& lens, const RnnResult& out) {
  for (std::size_t b = 0; b < 3; ++b) {
    const std::size_t len = static_cast<std::size_t>(lens(b));
    const std::string item = "sequence " + std::to_string(b) + " of 3 (length " + std::to_string(len) + " of 5)";
    for (std::size_t t = len; t < 5; ++t)
      for (std::size_t j = 0; j < 8; ++j)
        c.expect(out.outputs.value()(b, t, j) == 0.0f, "outputs past a sequence's end are 0",
                 item + ", step " + std::to_string(t) + ", unit " + std::to_string(j), "0", option_text(out.outputs.value()(b, t, j)));
    const RnnResult alone = rnn(slice(slice(x, 0, b, b + 1), 1, 0, len), std::nullopt);
    c.close("each sequence alone, unpadded, as in the padded batch", item + ": outputs", alone.outputs.value(),
            slice(slice(out.outputs, 0, b, b + 1), 1, 0, len).value(), 1e-5, 1e-5, "its outputs in the batch");
    for (std::size_t s = 0; s < out.states.size(); ++s)
      for (std::size_t p = 0; p < out.states[s].size(); ++p)
        c.close("each sequence alone, unpadded, as in the padded batch", item + ": final state " + std::to_string(s) + ", part " + std::to_string(p),
                alone.states[s][p].value(), slice(out.states[s][p], 0, b, b + 1).value(), 1e-5, 1e-5, "its final state in the batch");
  }
}

}  // namespace

ConformanceRun check_cell(const Registries& r, const std::string& name, const Options& options, float fd_step) {
  Checker c(r.cells.describe(name), "");
  c.guarded("builds and runs in a 2-layer bidirectional RNN", "inputs [3, 5, 3], lengths [5, 2, 1], hidden 4", [&] {
    Rng rng(5);
    ParamStore store;
    RnnConfig config;
    config.cell = {name, options, {}};
    config.input_size = 3;
    config.hidden_size = 4;
    config.layers = 2;
    config.bidirectional = true;
    const Rnn rnn(r, ParamScope(store, rng, "rnn"), config);
    Var x = leaf(random_normal({3, 5, 3}, rng));
    const IntTensor lens = {5, 2, 1};
    const RnnResult out = rnn(x, lens);
    const std::string input = "inputs [3, 5, 3], lengths [5, 2, 1], hidden 4, 2 layers, both directions";
    if (!c.expect(out.outputs.shape() == Shape{3, 5, 8}, "outputs of shape [batch, steps, 2 hidden]", input, "[3, 5, 8]",
                  shape_str(out.outputs.shape())) ||
        !c.expect(out.states.size() == 4, "a final state per layer and direction", input, "4", std::to_string(out.states.size())))
      return;
    for (const CellState& s : out.states)
      for (const Var& part : s) c.expect(part.shape() == Shape{3, 4}, "final states of shape [batch, hidden]", input, "[3, 4]", shape_str(part.shape()));
    padding_and_batch(c, rnn, x, lens, out);
    c.gradients("gradients", input, [&] {
      const RnnResult again = rnn(x, lens);
      return concat({reshape(again.outputs, {3, 40}), again.states.back().back()}, 1);
    }, leaves_of(store, {{"x", x}}), fd_step);
  });
  return c.result();
}

}  // namespace attn
