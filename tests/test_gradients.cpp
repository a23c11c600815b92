// Finite-difference gradient checks of every primitive (over inputs and parameters), and the
// proof that the check fails when a backward is wrong.
#include <catch2/catch.hpp>

#include "attnlab/attnlab.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;

namespace {

Tensor positive(const Shape& shape, std::uint64_t seed) { return xt::abs(randn(shape, seed)) + 0.5f; }

GradCheckResult check(const std::function<Var()>& f, const std::vector<Var>& leaves) {
  Rng rng(99);
  return gradcheck(f, leaves, rng);
}

#define REQUIRE_GRADIENTS(f, ...)                         \
  do {                                                    \
    const auto result = check(f, {__VA_ARGS__});          \
    INFO(result.report);                                  \
    CHECK(result.checked > 0);                            \
    CHECK(result.ok);                                     \
  } while (0)

// f's value and the gradients of sum(f() * U) (U fixed, random) to `leaves`: a fused op and the
// ops it fuses must give the same floats.
std::vector<Tensor> value_and_gradients(const std::function<Var()>& f, const std::vector<Var>& leaves) {
  for (const Var& v : leaves) v.zero_grad();
  const Var y = f();
  sum(y * constant(randn(y.shape(), 16))).backward();
  std::vector<Tensor> out{y.value()};
  for (const Var& v : leaves) out.push_back(v.grad());
  return out;
}

}  // namespace

TEST_CASE("elementwise binary ops with broadcasting", "[gradcheck][autodiff]") {
  Var a = leaf(randn({2, 3, 4}, 1));
  Var row = leaf(randn({4}, 2));
  Var col = leaf(randn({2, 1, 4}, 3));
  Var away = leaf(randn({3, 1}, 4, 0.5f));
  REQUIRE_GRADIENTS([&] { return add(a, row); }, a, row);
  REQUIRE_GRADIENTS([&] { return sub(col, a); }, a, col);
  REQUIRE_GRADIENTS([&] { return mul(a, col); }, a, col);
  REQUIRE_GRADIENTS([&] { return div(a, away); }, a, away);
  REQUIRE_GRADIENTS([&] { return div(away, a * a + 1.0f); }, a, away);
}

TEST_CASE("scalar ops", "[gradcheck][autodiff]") {
  Var a = leaf(randn({3, 4}, 5));
  REQUIRE_GRADIENTS([&] { return scale(a, -2.5f); }, a);
  REQUIRE_GRADIENTS([&] { return add_scalar(a, 3.0f); }, a);
  REQUIRE_GRADIENTS([&] { return 1.0f - a / 4.0f; }, a);
}

TEST_CASE("elementwise unary ops", "[gradcheck][autodiff]") {
  Var x = leaf(randn({3, 5}, 6, 0.1f));
  Var pos = leaf(positive({3, 5}, 7));
  REQUIRE_GRADIENTS([&] { return tanh(x); }, x);
  REQUIRE_GRADIENTS([&] { return sigmoid(x); }, x);
  REQUIRE_GRADIENTS([&] { return relu(x); }, x);
  REQUIRE_GRADIENTS([&] { return gelu(x); }, x);
  REQUIRE_GRADIENTS([&] { return gelu(scale(x, 3.0f)); }, x);  // into both tails
  REQUIRE_GRADIENTS([&] { return leaky_relu(x, 0.2f); }, x);
  REQUIRE_GRADIENTS([&] { return elu(x); }, x);
  REQUIRE_GRADIENTS([&] { return exp(x); }, x);
  REQUIRE_GRADIENTS([&] { return log(pos); }, pos);
  REQUIRE_GRADIENTS([&] { return sqrt(pos); }, pos);
  REQUIRE_GRADIENTS([&] { return square(x); }, x);
  REQUIRE_GRADIENTS([&] { return abs(x); }, x);
}

TEST_CASE("matmul and bmm, every transpose combination", "[gradcheck][autodiff]") {
  Var a = leaf(randn({2, 3, 4}, 8));
  Var w = leaf(randn({4, 5}, 9));
  REQUIRE_GRADIENTS([&] { return matmul(a, w); }, a, w);
  Var p = leaf(randn({2, 3, 4}, 10));  // [B, m, k]
  Var pt = leaf(randn({2, 4, 3}, 11)); // [B, k, m]
  Var q = leaf(randn({2, 4, 5}, 12));  // [B, k, n]
  Var qt = leaf(randn({2, 5, 4}, 13)); // [B, n, k]
  REQUIRE_GRADIENTS([&] { return bmm(p, q); }, p, q);
  REQUIRE_GRADIENTS([&] { return bmm(pt, q, true, false); }, pt, q);
  REQUIRE_GRADIENTS([&] { return bmm(p, qt, false, true); }, p, qt);
  REQUIRE_GRADIENTS([&] { return bmm(pt, qt, true, true); }, pt, qt);
  // An operand used twice: the first product fills its fresh gradient (beta 0), the second adds (beta 1).
  REQUIRE_GRADIENTS([&] { return matmul(a, w) * matmul(a, w); }, a, w);
  REQUIRE_GRADIENTS([&] { return bmm(p, q) + bmm(p, qt, false, true) * bmm(p, q); }, p, q, qt);
  // The fused Linear: x w + b, and the same as its two ops.
  Var bias = leaf(randn({5}, 14));
  REQUIRE_GRADIENTS([&] { return linear(a, w, bias); }, a, w, bias);
  REQUIRE_GRADIENTS([&] { return linear(a, w, bias) * linear(a, w, bias); }, a, w, bias);
  CHECK(xt::allclose(linear(a, w, bias).value(), (matmul(a, w) + bias).value()));
  CHECK_THROWS_WITH(linear(a, w, leaf(randn({4}, 15))), "linear: expected x [..., k], w [k, n] and b [n], got [2, 3, 4], [4, 5] and [4]");
  // The fused feed-forward half relu(x w + b): its gradients, once and next to linear (its dy is
  // overwritten by the mask, which must not reach another consumer), and the same floats as the
  // two ops, values and gradients.
  REQUIRE_GRADIENTS([&] { return linear_relu(a, w, bias); }, a, w, bias);
  REQUIRE_GRADIENTS([&] { return linear_relu(a, w, bias) * linear(a, w, bias); }, a, w, bias);
  const auto fused = value_and_gradients([&] { return linear_relu(a, w, bias); }, {a, w, bias});
  const auto composed = value_and_gradients([&] { return relu(linear(a, w, bias)); }, {a, w, bias});
  CHECK(xt::amax(fused[0])() > 0.0f);
  CHECK(xt::amin(fused[0])() == 0.0f);  // some rows are cut by the ReLU
  for (std::size_t i = 0; i < fused.size(); ++i) CHECK(fused[i] == composed[i]);
  CHECK_THROWS_WITH(linear_relu(a, w, leaf(randn({4}, 15))),
                    "linear_relu: expected x [..., k], w [k, n] and b [n], got [2, 3, 4], [4, 5] and [4]");
}

TEST_CASE("shape ops", "[gradcheck][autodiff]") {
  Var x = leaf(randn({2, 3, 4}, 14));
  Var y = leaf(randn({2, 2, 4}, 15));
  REQUIRE_GRADIENTS([&] { return reshape(x, {6, 4}); }, x);
  REQUIRE_GRADIENTS([&] { return permute(x, {2, 0, 1}); }, x);
  REQUIRE_GRADIENTS([&] { return transpose(x, 0, 2); }, x);
  REQUIRE_GRADIENTS([&] { return slice(x, 1, 1, 3); }, x);
  REQUIRE_GRADIENTS([&] { return slice(x, 2, 0, 1); }, x);
  REQUIRE_GRADIENTS([&] { return concat({x, y, x}, 1); }, x, y);
  IntTensor idx = {2, 0, 2, 1};  // repeated index: its gradient must add up
  REQUIRE_GRADIENTS([&] { return index_select(x, 1, idx); }, x);
  IntTensor idx2 = {{3, 3}, {0, 1}};
  REQUIRE_GRADIENTS([&] { return index_select(x, 2, idx2); }, x);
  Var heads = leaf(randn({2, 3, 6}, 16));  // [B, n, h*p] with h = 3, p = 2
  REQUIRE_GRADIENTS([&] { return split_heads(heads, 3); }, heads);
  REQUIRE_GRADIENTS([&] { return merge_heads(heads, 2); }, heads);  // [B*h, n, p] with h = 2
  REQUIRE_GRADIENTS([&] { return split_heads(heads, 3) * split_heads(heads, 3); }, heads);  // fresh, then adding
}

TEST_CASE("recurrent primitives: the fused GRU step and the row selection of packed sequences", "[gradcheck][autodiff]") {
  Var xp = leaf(randn({3, 6}, 20)), hp = leaf(randn({3, 6}, 21)), h = leaf(randn({3, 2}, 22));
  REQUIRE_GRADIENTS([&] { return gru_step(xp, hp, h); }, xp, hp, h);
  // The same inputs twice: the first contribution fills fresh gradients, the second adds.
  REQUIRE_GRADIENTS([&] { return gru_step(xp, hp, h) * gru_step(hp, xp, h); }, xp, hp, h);
  Var a = leaf(randn({3, 2, 2}, 23)), c = leaf(randn({3, 2, 2}, 24));
  const std::vector<bool> keep = {true, false, true};
  REQUIRE_GRADIENTS([&] { return rows_where(keep, a, c); }, a, c);
  REQUIRE_GRADIENTS([&] { return rows_where(keep, a, Var()) * a; }, a);
  CHECK_THROWS_WITH(gru_step(xp, hp, a), Catch::StartsWith("gru_step: expected projected input and state [B, 3h]"));
}

TEST_CASE("recurrent primitives: the fused LSTM step (both outputs) and the fused Elman step", "[gradcheck][autodiff]") {
  Var xp = leaf(randn({3, 8}, 30)), hp = leaf(randn({3, 8}, 31)), c = leaf(randn({3, 2}, 32));
  REQUIRE_GRADIENTS([&] { return lstm_step(xp, hp, c).h; }, xp, hp, c);
  REQUIRE_GRADIENTS([&] { return lstm_step(xp, hp, c).c; }, xp, hp, c);
  // h' reads c': the gradient reaching c' collects both paths; two steps chain the state.
  REQUIRE_GRADIENTS([&] {
    const LstmState s = lstm_step(xp, hp, c);
    return s.h * s.c + lstm_step(hp, xp, s.c).h;
  }, xp, hp, c);
  Var x1 = leaf(randn({3, 5}, 33)), p1 = leaf(randn({3, 5}, 34));
  REQUIRE_GRADIENTS([&] { return rnn_step(x1, p1); }, x1, p1);
  REQUIRE_GRADIENTS([&] { return rnn_step(x1, p1) * rnn_step(p1, x1); }, x1, p1);
  CHECK_THROWS_WITH(lstm_step(xp, hp, x1), Catch::StartsWith("lstm_step: expected projected input and state [B, 4h]"));
  CHECK_THROWS_WITH(rnn_step(xp, p1), Catch::StartsWith("rnn_step: expected projected input and state [B, 1h]"));
}

TEST_CASE("split_heads is the reshape-permute-reshape of d2l's transpose_qkv, merge_heads its inverse", "[autodiff][gradcheck]") {
  const Var x = constant(randn({2, 5, 12}, 17));
  for (const std::size_t h : {1, 3, 4}) {
    const Var split = split_heads(x, h);
    const Var by_permute = reshape(permute(reshape(x, {2, 5, h, 12 / h}), {0, 2, 1, 3}), {2 * h, 5, 12 / h});
    CHECK(split.value() == by_permute.value());
    CHECK(merge_heads(split, h).value() == x.value());
  }
  CHECK_THROWS_WITH(split_heads(x, 5), "split_heads: expected [B, n, heads * p] with 5 heads in columns [0, 12), got [2, 5, 12]");
  // A column range: the heads of columns [4, 10) of x, and the gradient only there.
  const Var part = split_heads(x, 2, 4, 6);
  const Var by_slice = split_heads(slice(x, 2, 4, 10), 2);
  CHECK(part.value() == by_slice.value());
  CHECK_THROWS_WITH(split_heads(x, 2, 8, 6), "split_heads: expected [B, n, heads * p] with 2 heads in columns [8, 14), got [2, 5, 12]");
  Var y = leaf(randn({2, 3, 12}, 18));
  REQUIRE_GRADIENTS([&] { return split_heads(y, 2, 4, 6); }, y);  // fresh gradient buffer: zeros outside
  REQUIRE_GRADIENTS([&] { return split_heads(y, 2, 0, 6) * split_heads(y, 2, 6, 6) + split_heads(y, 2, 3, 6); }, y);
}

TEST_CASE("reductions", "[gradcheck][autodiff]") {
  Var x = leaf(randn({2, 3, 4}, 16));
  REQUIRE_GRADIENTS([&] { return sum(x); }, x);
  REQUIRE_GRADIENTS([&] { return sum(x, {1}); }, x);
  REQUIRE_GRADIENTS([&] { return sum(x, {0, 2}, true); }, x);
  REQUIRE_GRADIENTS([&] { return mean(x); }, x);
  REQUIRE_GRADIENTS([&] { return mean(x, {2}); }, x);
  REQUIRE_GRADIENTS([&] { return mean(x, {0, 1}, true); }, x);
}

TEST_CASE("softmax family", "[gradcheck][autodiff]") {
  Var s = leaf(randn({3, 4, 5}, 17));
  REQUIRE_GRADIENTS([&] { return softmax(s); }, s);
  REQUIRE_GRADIENTS([&] { return log_softmax(s); }, s);
  REQUIRE_GRADIENTS([&] { return masked_softmax(s, IntTensor{2, 5, 0}); }, s);  // 1-D, with length 0
  REQUIRE_GRADIENTS([&] { return masked_softmax(s, IntTensor{{1, 2, 3, 4}, {5, 0, 1, 2}, {3, 3, 3, 3}}); }, s);  // 2-D
}

TEST_CASE("losses", "[gradcheck][autodiff]") {
  Var logits = leaf(randn({3, 4, 6}, 18));
  const IntTensor labels = {{1, 5, 0, 2}, {3, 3, 4, 0}, {2, 1, 1, 5}};
  REQUIRE_GRADIENTS([&] { return masked_cross_entropy(logits, labels, IntTensor{4, 2, 0}); }, logits);
}

TEST_CASE("embedding, dropout and layer norm over inputs and parameters", "[gradcheck][autodiff]") {
  Var table = leaf(randn({5, 3}, 21));
  const IntTensor ids = {{4, 0, 4}, {1, 2, 3}};
  REQUIRE_GRADIENTS([&] { return embedding(table, ids); }, table);

  Var x = leaf(randn({4, 6}, 22));
  REQUIRE_GRADIENTS([&] { Rng rng(5); return dropout(x, 0.4f, rng); }, x);  // same mask each call

  Var gamma = leaf(randn({6}, 23)), beta = leaf(randn({6}, 24));
  REQUIRE_GRADIENTS([&] { return layer_norm(x, gamma, beta); }, x, gamma, beta);
  // The fused add & norm: its gradients (also with one input twice, whose gradient is then
  // twice the sum's), and the same floats as layer_norm(x + y).
  Var y = leaf(randn({4, 6}, 25));
  REQUIRE_GRADIENTS([&] { return add_layer_norm(x, y, gamma, beta); }, x, y, gamma, beta);
  REQUIRE_GRADIENTS([&] { return add_layer_norm(x, x, gamma, beta); }, x, gamma, beta);
  REQUIRE_GRADIENTS([&] { return add_layer_norm(x, y, gamma, beta) * (x + y); }, x, y, gamma, beta);
  const auto fused = value_and_gradients([&] { return add_layer_norm(x, y, gamma, beta); }, {x, y, gamma, beta});
  const auto composed = value_and_gradients([&] { return layer_norm(x + y, gamma, beta); }, {x, y, gamma, beta});
  for (std::size_t i = 0; i < fused.size(); ++i) CHECK(fused[i] == composed[i]);
  CHECK_THROWS_WITH(add_layer_norm(x, leaf(randn({4, 5}, 26)), gamma, beta),
                    "add_layer_norm: the two inputs must have one shape, got [4, 6] and [4, 5]");
}

TEST_CASE("modules: gradients reach every parameter of Linear, Embedding and LayerNorm", "[gradcheck][nn]") {
  ParamStore store;
  Rng rng(7);
  ParamScope root(store, rng);
  const Embedding embed(root.child("embed"), 6, 4);
  const LayerNorm norm(root.child("norm"), 4);
  const Linear proj(root.child("proj"), 4, 3);
  const IntTensor ids = {{1, 5}, {0, 2}};
  std::vector<Var> params;
  for (const auto& item : store.items()) params.push_back(item.second);
  REQUIRE(params.size() == 5);
  REQUIRE_GRADIENTS([&] { return tanh(proj(norm(embed(ids)))); }, params);
}

TEST_CASE("fused attention primitives: squared distances, additive scores, l2 normalisation", "[gradcheck][autodiff]") {
  Var q = leaf(randn({2, 3, 4}, 26)), k = leaf(randn({2, 5, 4}, 27)), w = leaf(randn({4}, 28));
  REQUIRE_GRADIENTS([&] { return squared_distances(q, k); }, q, k);
  REQUIRE_GRADIENTS([&] { return distances(q, k); }, q, k);
  // At distance 0 the gradient is the subgradient 0, not NaN.
  Var same = leaf(slice(q, 1, 0, 1).value());
  distances(same, same).backward(Tensor(xt::ones<float>({2, 1, 1})));
  for (float g : same.grad()) CHECK(g == 0.0f);
  REQUIRE_GRADIENTS([&] { return additive_scores(q, k, w); }, q, k, w);
  REQUIRE_GRADIENTS([&] { return l2_normalize(q); }, q);
}

TEST_CASE("the gradient check fails on a deliberately wrong backward", "[gradcheck][meta]") {
  Var x = leaf(randn({3, 4}, 25));
  // tanh with d tanh = 1 - y instead of 1 - y^2
  auto wrong_tanh = [](const Var& v) {
    return graph_node(xt::tanh(v.value()), {v}, [](Node& n) { n.accumulate(0, n.grad * (1.0f - n.value)); });
  };
  const auto wrong = check([&] { return wrong_tanh(x); }, {x});
  INFO(wrong.report);
  CHECK_FALSE(wrong.ok);
  CHECK(wrong.worst_error > 0.0f);
  // The report names the leaf and the entry's index (conformance names q, k, v, W_q, ...).
  Rng rng(99);
  const auto named = gradcheck([&] { return wrong_tanh(x); }, NamedVars{{"x", x}}, rng);
  CHECK_THAT(named.report, Catch::Matches(R"(x \[3, 4\] entry \([0-2], [0-3]\): analytic .*, numeric .*)"));

  // A backward that overwrites instead of adding breaks as soon as x feeds two paths.
  auto overwriting_square = [](const Var& v) {
    return graph_node(v.value() * v.value(), {v}, [](Node& n) {
      n.parents[0]->grad_buffer() = 2.0f * n.parents[0]->value * n.grad;
    });
  };
  CHECK(check([&] { return overwriting_square(x); }, {x}).ok);  // alone it looks right...
  CHECK_FALSE(check([&] { return overwriting_square(x) + overwriting_square(x); }, {x}).ok);  // ...not in a graph

  // Kinks: an entry within eps of ReLU's kink passes through the one-sided and narrower
  // differences, and a backward that is wrong there still fails.
  Var near = leaf(Tensor{0.004f, -0.003f, 0.5f});
  CHECK(check([&] { return relu(near); }, {near}).ok);
  auto slope_one = [](const Var& v) {  // relu whose backward passes dy everywhere
    return graph_node(xt::maximum(v.value(), 0.0f), {v}, [](Node& n) { n.accumulate(0, n.grad); });
  };
  CHECK_FALSE(check([&] { return slope_one(near); }, {near}).ok);

  // and the correct version of the same op passes, so the failures above are the backward's.
  auto right_tanh = [](const Var& v) {
    return graph_node(xt::tanh(v.value()), {v}, [](Node& n) { n.accumulate(0, n.grad * (1.0f - n.value * n.value)); });
  };
  CHECK(check([&] { return right_tanh(x); }, {x}).ok);
}
