// The contract of the graph: gradients add up, constants take none, deep graphs do not
// overflow the stack, independent graphs run at once on different threads, and a value is
// released once nothing may read it, without changing a gradient.
#include <catch2/catch.hpp>

#include <cmath>
#include <thread>
#include <utility>

#include "attnlab/attnlab.hpp"
#include "test_support.hpp"

using namespace attn;

TEST_CASE("a Var used twice receives the sum of both gradients", "[autodiff]") {
  Var x = leaf(Tensor{1.0f, 2.0f, 3.0f});
  (x * x + x).backward();  // d/dx (x^2 + x) = 2x + 1
  const Tensor expected = {3.0f, 5.0f, 7.0f};
  CHECK((x.grad() == expected));
}

TEST_CASE("backward adds into existing gradients until zero_grad", "[autodiff]") {
  Var x = leaf(Tensor{2.0f});
  sum(x * 3.0f).backward();
  sum(x * 3.0f).backward();
  CHECK(x.grad()(0) == 6.0f);
  x.zero_grad();
  CHECK_FALSE(x.has_grad());
  sum(x * 3.0f).backward();
  CHECK(x.grad()(0) == 3.0f);
}

TEST_CASE("relu keeps NaN and passes gradients only where its input was positive", "[autodiff]") {
  // 37 elements: two AVX-512 vectors and a scalar tail, so both of relu's code paths are checked
  const auto [n, nan_at] = GENERATE(std::pair<std::size_t, std::size_t>{37, 5}, std::pair<std::size_t, std::size_t>{37, 36});
  Tensor v = Tensor::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) v(i) = static_cast<float>(i % 7) - 3.0f;  // -3 .. 3, 0 included
  v(nan_at) = std::nanf("");
  const Var x = leaf(v);
  const Var y = relu(x);
  (y * 2.0f + x).backward();  // dx = 2 [x > 0] + 1
  for (std::size_t i = 0; i < n; ++i) {
    if (i == nan_at) {
      CHECK(std::isnan(y.value()(i)));
      continue;
    }
    CHECK(y.value()(i) == std::max(v(i), 0.0f));
    CHECK(x.grad()(i) == (v(i) > 0.0f ? 3.0f : 1.0f));
  }
}

TEST_CASE("results of constants are constants and keep no graph", "[autodiff]") {
  const Var c = constant(Tensor{1.0f, 2.0f});
  const Var y = tanh(c * c);
  CHECK_FALSE(y.requires_grad());
  CHECK(y.node()->parents.empty());
  CHECK_THROWS_AS(y.backward(), std::logic_error);
  Var p = leaf(Tensor{1.0f, 2.0f});
  CHECK((c * p).requires_grad());
}

TEST_CASE("backward through a 20000-step chain does not overflow the stack", "[autodiff]") {
  Var x = leaf(Tensor{0.5f});
  Var y = x;
  for (int i = 0; i < 20000; ++i) y = y * 1.0f;
  y.backward();
  CHECK(x.grad()(0) == 1.0f);
}

TEST_CASE("independent graphs train at once on two threads with identical results", "[autodiff][threads]") {
  auto train = [](std::uint64_t seed) {
    ParamStore store;
    Rng rng(seed);
    const Linear layer(ParamScope(store, rng, "layer"), 8, 4);
    Tensor x = Tensor::from_shape({16, 8});
    for (float& v : x) v = rng.normal();
    for (int step = 0; step < 50; ++step) {
      store.zero_grad();
      sum(square(tanh(layer(constant(x))))).backward();
      for (const auto& item : store.items()) {
        Var p = item.second;
        p.mutable_value() -= 0.01f * p.grad();
      }
    }
    return Tensor(store.get("layer.W").value());
  };
  const Tensor alone = train(42);
  Tensor a, b;
  std::thread t1([&] { a = train(42); });
  std::thread t2([&] { b = train(42); });
  t1.join();
  t2.join();
  CHECK((a == alone));
  CHECK((b == alone));
}

namespace {

// x [4, 3] w [3, 5] -> h = x w -> r = h viewed as [20] -> g = gelu(r) -> sum(g * g): the
// gradients of x and w, with every Var kept (keep) or each dropped once the next op has it.
std::pair<Tensor, Tensor> gelu_of_product_gradients(bool keep) {
  Rng rng(7);
  const Var x = leaf(test::randn({4, 3}, rng)), w = leaf(test::randn({3, 5}, rng));
  Var h = matmul(x, w);
  Var r = reshape(h, {20});
  if (!keep) h = Var();
  Var g = gelu(r);
  if (!keep) r = Var();
  const Var loss = sum(g * g);
  if (!keep) g = Var();
  loss.backward();
  return {x.grad(), w.grad()};
}

Node::Held held(const std::weak_ptr<Node>& n) { return n.lock()->held; }  // (a weak_ptr holds no value)

}  // namespace

TEST_CASE("a value no backward reads goes with its last Var; a value a backward reads stays until that backward ran", "[autodiff]") {
  Rng rng(7);
  const Var x = leaf(test::randn({4, 3}, rng)), w = leaf(test::randn({3, 5}, rng));
  Var h = matmul(x, w);      // matmul's backward reads x and w, not its result
  Var r = reshape(h, {20});  // reshape's reads no value: nothing reads h's
  const std::weak_ptr<Node> h_node = h.node(), r_node = r.node();
  CHECK(held(h_node) == Node::Held::value);  // a Var holds it
  h = Var();
  CHECK(held(h_node) == Node::Held::released);
  CHECK(h_node.lock()->value.size() == 0);
  CHECK(h_node.lock()->shape() == Shape{4, 5});  // its shape stays
  Var g = gelu(r);  // gelu's backward reads its input
  r = Var();
  CHECK(held(r_node) == Node::Held::value);
  const Var loss = sum(g * g);
  const std::weak_ptr<Node> g_node = g.node();
  loss.backward();
  CHECK(held(r_node) == Node::Held::spent);  // gelu's backward has run: nothing reads it now
  CHECK(held(g_node) == Node::Held::value);  // a Var holds it
  CHECK(g.value().size() == 20);
  CHECK_THROWS_WITH(loss.backward(), Catch::Contains("this graph was back-propagated before") && Catch::Contains("compute the result again"));
}

TEST_CASE("values released early change no gradient", "[autodiff]") {
  const auto [x_kept, w_kept] = gelu_of_product_gradients(true);
  const auto [x_released, w_released] = gelu_of_product_gradients(false);
  CHECK((x_released == x_kept));
  CHECK((w_released == w_kept));
  CHECK(xt::amax(xt::abs(x_kept))() > 0.0f);
}
