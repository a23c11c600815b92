// The conformance checks of a positional scheme, held to its declared traits (conformance.hpp).
#include "attnlab/plugins/checked_plugins.hpp"
#include "lab/conformance/conformance.hpp"

namespace attn {
namespace {

// The valid keys of 4 rows of 6 queries: causal, j <= i; bidirectional, lengths 6, 6, 4, 4.
IntTensor attention_lens(bool causal) {
  if (!causal) return IntTensor{6, 6, 4, 4};
  IntTensor lens = IntTensor::from_shape({4, 6});
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t i = 0; i < 6; ++i) lens(r, i) = static_cast<int>(i + 1);
  return lens;
}

// The attention weights [4, 6, 6] of x [2, 6, 8] at positions first .. first + 5 through the
// scheme (2 heads of size 4, Q = K = split(add_to_input(x))), as an attention layer computes them.
Var weights_through(const CheckedPositional& s, const Var& x, std::size_t first, bool causal) {
  const Var q = split_heads(s.add_to_input(x, first), 2);
  Var scores = bmm(s.rotate(q, first, Role::queries), s.rotate(q, first, Role::keys), false, true) * 0.5f;
  if (const Var b = s.bias(first, 6, first, 6); b.defined()) scores = scores + index_select(b, 0, IntTensor{0, 1, 0, 1});
  return masked_softmax(scores, attention_lens(causal));
}

// Decoding with a key/value cache asks for the newest positions alone: positions 2..5 asked for
// by themselves are rows 2..5 of the whole.
void positions_alone(Checker& c, const CheckedPositional& s, const Var& x) {
  const std::string check = "positions asked for alone (a key/value cache) get what they get among the others";
  const Var q = split_heads(x, 2);
  c.close(check, "add_to_input at positions 2..5", s.add_to_input(slice(x, 1, 2, 6), 2).value(),
          slice(s.add_to_input(x, 0), 1, 2, 6).value(), 1e-6, 1e-6, "rows 2..5 of positions 0..5");
  for (const Role role : {Role::queries, Role::keys})
    c.close(check, std::string("rotate of the ") + (role == Role::queries ? "queries" : "keys") + " at positions 2..5",
            s.rotate(slice(q, 1, 2, 6), 2, role).value(), slice(s.rotate(q, 0, role), 1, 2, 6).value(), 1e-5, 1e-6,
            "rows 2..5 of positions 0..5");
  if (const Var whole = s.bias(0, 6, 0, 6); whole.defined())
    c.close(check, "bias of queries 2..5 over keys 0..5", s.bias(2, 4, 0, 6).value(), slice(whole, 1, 2, 6).value(), 1e-6, 1e-6,
            "rows 2..5 of the whole bias");
}

void check_one_direction(Checker& c, const Registries& r, const std::string& name, const Options& options, float fd_step, bool causal) {
  const std::string how = causal ? "causal" : "bidirectional";
  Rng rng(5);
  ParamStore store;
  const ParamScope scope(store, rng, "positional");
  const CheckedPositional s = make_positional(r, PluginChoice{name, options, ""}, scope, PositionalArgs{scope, options, 8, 2, 4, 64, causal});
  for (const auto& [_, p] : store.items()) p.mutable_value() = 0.5f * random_normal(p.shape(), rng);  // (a learned bias may start at 0)
  Var x = leaf(random_normal({2, 6, 8}, rng));
  const Var at0 = weights_through(s, x, 0, causal);
  c.masked_weights(how + " attention of 2 heads of 4 over positions 0..5", at0.value(), attention_lens(causal), true);
  if (s.traits.relative)
    for (const std::size_t shift : {std::size_t{1}, std::size_t{40}})
      c.close("a relative scheme's weights do not move when every position shifts (traits().relative)",
              how + ", positions " + std::to_string(shift) + ".." + std::to_string(shift + 5), weights_through(s, x, shift, causal).value(),
              at0.value(), 1e-4, 1e-5, "the weights at positions 0..5");
  if (s.traits.max_positions > 0) {
    std::string refusal = "no error";
    try {
      weights_through(s, x, s.traits.max_positions - 5, causal);
    } catch (const std::exception& e) {
      refusal = e.what();
    }
    c.expect(refusal.find("covers positions") != std::string::npos, "a table refuses positions past it (traits().max_positions)",
             "positions " + std::to_string(s.traits.max_positions - 5) + ".." + std::to_string(s.traits.max_positions),
             "an error that says what it 'covers positions'", refusal);
  }
  positions_alone(c, s, x);
  c.gradients("gradients (" + how + ")", how + " attention at positions 3..8", [&] { return bmm(weights_through(s, x, 3, causal), split_heads(x, 2)); },
              leaves_of(store, {{"x", x}}), fd_step);
}

}  // namespace

ConformanceRun check_positional(const Registries& r, const std::string& name, const Options& options, float fd_step) {
  Checker c(r.positional.describe(name), "");
  for (const bool causal : {true, false})
    c.guarded(std::string("builds and positions (") + (causal ? "causal" : "bidirectional") + ")",
              "x [2, 6, 8], 2 heads of 4, positions 0..5 (then shifted by 1 and 40)",
              [&] { check_one_direction(c, r, name, options, fd_step, causal); });
  return c.result();
}

}  // namespace attn
