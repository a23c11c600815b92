// Cross-check against PyTorch: forward values and gradients of composites of primitives agree
// with the golden files of tests/golden/make_golden.py to 1e-5 (scaled by max(1, |value|)).
#include <catch2/catch.hpp>

#include "attnlab/attnlab.hpp"
#include "golden.hpp"

using namespace attn;
using attn::test::Golden;
using attn::test::max_scaled_error;

TEST_CASE("matmul -> tanh -> masked softmax -> masked cross-entropy matches PyTorch", "[golden][autodiff]") {
  const Golden g("attention_composite.txt");
  Var X = leaf(g["X"]), W = leaf(g["W"]), V = leaf(g["V"]), b = leaf(g["b"]);

  const Var H = tanh(matmul(X, W));                                          // [2, 4, 5]
  const Var A = masked_softmax(bmm(H, H, false, true), g.ints("query_lens"));  // [2, 4, 4]
  const Var logits = matmul(bmm(A, H), V) + b;                               // [2, 4, 6]
  const Var loss = masked_cross_entropy(logits, g.ints("labels"), g.ints("seq_lens"));  // [2]
  sum(loss).backward();

  CHECK(max_scaled_error(A.value(), g["attention"]) < 1e-5);
  CHECK(max_scaled_error(loss.value(), g["loss"]) < 1e-5);
  CHECK(max_scaled_error(X.grad(), g["dX"]) < 1e-5);
  CHECK(max_scaled_error(W.grad(), g["dW"]) < 1e-5);
  CHECK(max_scaled_error(V.grad(), g["dV"]) < 1e-5);
  CHECK(max_scaled_error(b.grad(), g["db"]) < 1e-5);
}

TEST_CASE("embedding -> layer norm -> linears -> concat -> log-softmax and friends match PyTorch", "[golden][autodiff]") {
  const Golden g("layers_composite.txt");
  Var E = leaf(g["E"]), gamma = leaf(g["gamma"]), beta = leaf(g["beta"]);
  Var W1 = leaf(g["W1"]), b1 = leaf(g["b1"]), W2 = leaf(g["W2"]), b2 = leaf(g["b2"]);

  const Var x = layer_norm(embedding(E, g.ints("ids")), gamma, beta);        // [2, 3, 4]
  const Var c = concat({sigmoid(matmul(x, W1) + b1), relu(matmul(x, W2) + b2)}, 2);  // [2, 3, 6]
  const Var z = log(1.0f + exp(c)) / (1.0f + c * c) - c;                     // [2, 3, 6]
  const Var p = log_softmax(z);
  const Var w = masked_softmax(transpose(z, 1, 2), g.ints("lens"));         // [2, 6, 3]
  const Var out = sum(mean(p * c, {1})) + mean(square(c - constant(g["target"]))) + sum(w * w);
  out.backward();

  CHECK(max_scaled_error(out.value(), g["out"]) < 1e-5);
  CHECK(max_scaled_error(E.grad(), g["dE"]) < 1e-5);
  CHECK(max_scaled_error(gamma.grad(), g["dgamma"]) < 1e-5);
  CHECK(max_scaled_error(beta.grad(), g["dbeta"]) < 1e-5);
  CHECK(max_scaled_error(W1.grad(), g["dW1"]) < 1e-5);
  CHECK(max_scaled_error(b1.grad(), g["db1"]) < 1e-5);
  CHECK(max_scaled_error(W2.grad(), g["dW2"]) < 1e-5);
  CHECK(max_scaled_error(b2.grad(), g["db2"]) < 1e-5);
}
