// The relevance of attention weights (attention_relevance.hpp), G = dy/dA ⊙ A with y the model's
// log-likelihood of its own prediction for a probe example, on a 2-layer Transformer: against the gradient of
// a gate on each head's output (a head's weights scaled by xi scale its output by xi, so
// sum_ij G[h] = dy/dxi_h, which the head gates measure through another path: Michel et al.'s
// importance), zero where the weights are, and the watched model computing what the model
// computes. (Finite differences of xi cross the kinks of the feed-forward ReLUs.)
#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/models/attention_relevance.hpp"
#include "attnlab/models/attention_rollout.hpp"
#include "attnlab/registries.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::reverse_task;

namespace {

std::shared_ptr<Model> two_layer_transformer(const Data& data, ParamStore& store) {
  return attn::test::built_model("transformer", data, store,
                                 {{"d_model", "16"}, {"ffn_hidden", "32"}, {"heads", "2"}, {"layers", "2"}, {"dropout", "0"}}, 11);
}

// dy/dxi of probe example 0, y = -L, for a gate xi of 1s on the heads of `site`.
Tensor gate_gradient(Model& model, std::size_t site) {
  HeadGates& g = model.head_gates();
  const Var xi = leaf(xt::ones<float>({g.sites()[site].heads}));
  g.clear();
  g.set(site, xi);
  (0.0f - model.prediction_loss({0}).loss).backward();
  g.clear();
  return xi.grad();
}

}  // namespace

TEST_CASE("relevance: each head's sum of dy/dA ⊙ A is dy/dxi of a gate on its output",
          "[relevance][gradients]") {
  const Data data = reverse_task(100);
  ParamStore store;
  auto model = two_layer_transformer(data, store);
  const double loss = model->prediction_loss({0}).loss.item();
  for (const std::string map : {"encoder_self", "decoder_self", "cross"}) {
    const Tensor g = attention_relevance(*model, 0, map);
    REQUIRE(g.dimension() == 4);
    REQUIRE(g.shape()[0] == 2);
    REQUIRE(g.shape()[1] == 2);
    for (std::size_t layer = 0; layer < 2; ++layer) {
      const Tensor by_gate = gate_gradient(*model, model->head_gates().find(map, layer));
      for (std::size_t head = 0; head < 2; ++head) {
        double analytic = 0.0;
        for (std::size_t i = 0; i < g.shape()[2]; ++i)
          for (std::size_t j = 0; j < g.shape()[3]; ++j) analytic += g(layer, head, i, j);
        INFO(map << " layer " << layer << " head " << head << ": sum of G " << analytic << ", dy/dxi " << by_gate(head));
        CHECK(analytic == Approx(by_gate(head)).epsilon(1e-3).margin(1e-6));
        CHECK(std::abs(analytic) > 1e-4);  // (a head that matters: the check compares something)
      }
    }
  }
  // Watching changed nothing: the same loss after, the gates off again.
  CHECK(model->prediction_loss({0}).loss.item() == Approx(loss).epsilon(1e-6));
  CHECK_FALSE(model->head_gates().watching_weights());
}

TEST_CASE("relevance: 0 where the causal mask puts no weight; gradient rollout's rows sum to 1", "[relevance]") {
  const Data data = reverse_task(100);
  ParamStore store;
  auto model = two_layer_transformer(data, store);
  const Tensor g = attention_relevance(*model, 0, "decoder_self");
  bool nonzero = false;
  for (std::size_t l = 0; l < 2; ++l)
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t i = 0; i < g.shape()[2]; ++i)
        for (std::size_t j = 0; j < g.shape()[3]; ++j) {
          if (j > i) CHECK(g(l, h, i, j) == 0.0f);
          nonzero = nonzero || g(l, h, i, j) != 0.0f;
        }
  CHECK(nonzero);
  const Tensor r = gradient_rollout(g, g.shape()[2]);
  std::size_t rows = 0;  // (rows 1 and 0: a row the loss does not reach, past the target, has no relevance)
  for (std::size_t i = 0; i < r.shape()[0]; ++i) {
    double total = 0.0;
    for (std::size_t j = 0; j < r.shape()[1]; ++j) total += r(i, j);
    CHECK((total == Approx(1.0) || total == 0.0));
    rows += total > 0.5 ? 1 : 0;
  }
  CHECK(rows >= 2);
  CHECK_THROWS_WITH(attention_relevance(*model, 0, "kernel"), Catch::Contains("no attention layer of map 'kernel'"));
}

TEST_CASE("relevance: a recurrent decoder's attention, called once per step, is refused, and watching ends", "[relevance]") {
  const Data data = reverse_task(100);
  ParamStore store;
  auto model = attn::test::built_model("seq2seq", data, store, {{"embed", "8"}, {"hidden", "8"}}, 5);
  CHECK_THROWS_WITH(attention_relevance(*model, 0, "cross"), Catch::Contains("called more than once in the pass explained"));
  CHECK_FALSE(model->head_gates().watching_weights());
}
