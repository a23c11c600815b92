// Cross-check against PyTorch: forward values and gradients of composites of primitives agree
// with the golden files of tests/golden/make_golden.py to 1e-5 (scaled by max(1, |value|)).
#include <catch2/catch.hpp>

#include "attnlab/attnlab.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/models/sequence_model.hpp"
#include "test_support.hpp"

#include <xtensor/xadapt.hpp>
#include <xtensor/xview.hpp>
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

namespace {

// The golden file's images as a split: pixel vectors [N, 64, 1] on an 8 x 8 grid.
class GoldenImages final : public VectorSets {
 public:
  explicit GoldenImages(Tensor pixels) : pixels_(std::move(pixels)) {}
  std::size_t size() const override { return pixels_.shape()[0]; }
  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    VectorBatch b;
    b.vectors = take_rows(constant(pixels_), rows).value();
    b.lens = IntTensor::from_shape({rows.size()});
    std::fill(b.lens.begin(), b.lens.end(), 64);
    return b;
  }
  std::string describe(std::size_t row) const override { return "image " + std::to_string(row); }

 private:
  Tensor pixels_;
};

}  // namespace

TEST_CASE("vit matches a PyTorch twin of d2l's ViT: logits, loss, attention and every gradient; d2l's parameter count", "[golden][models][vit]") {
  const Golden g("vit.txt");
  VectorData d;
  d.kind = InputKind::image;
  d.dim = 1;
  d.grid_rows = d.grid_cols = 8;
  d.max_len = 64;
  d.classes = {"a", "b", "c"};
  d.train.sets = std::make_shared<GoldenImages>(g["images"]);
  d.train.labels = g.ints("labels");
  const Data data = d;
  ParamStore store;
  Rng rng(1);
  Options o;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"patch_size", "4"}, {"d_model", "8"}, {"mlp_hidden", "16"}, {"heads", "2"}, {"emb_dropout", "0"}, {"dropout", "0"}})
    o.set(k, v);
  auto model = attn::test::builtins().models.create("vit", ModelArgs{attn::test::builtins(), ParamScope(store, rng), o, data});
  for (const auto& [name, var] : store.items()) {
    INFO(name);
    REQUIRE(var.value().shape() == g[name].shape());
    var.mutable_value() = g[name];
  }
  Rng step_rng(2);
  const Var loss = model->loss({0, 1}, TrainingStep{step_rng}).loss;
  loss.backward();
  CHECK(max_scaled_error(loss.value(), g["loss"]) < 1e-5);
  for (const auto& [name, var] : store.items()) {
    INFO(name);
    CHECK(max_scaled_error(var.grad(), g["d" + name]) < 1e-5);
  }
  const auto predictions = dynamic_cast<Classifier&>(*model).predict(std::get<VectorData>(data).train, {0, 1});
  const Tensor probs = softmax(constant(g["logits"])).value();
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(max_scaled_error(Tensor(xt::adapt(predictions[i].probabilities.at(0))), xt::view(probs, i)) < 1e-5);
    const Tensor& w = predictions[i].attention.maps.at(0).weights;  // [layer, head, 5, 5]
    for (std::size_t l = 0; l < 2; ++l)
      CHECK(max_scaled_error(xt::view(w, l), xt::view(g["weights" + std::to_string(l)], i)) < 1e-5);
  }

  // d2l's configuration: as many parameters as d2l's model (PyTorch counted them)
  VectorData big = d;
  big.grid_rows = big.grid_cols = 96;
  big.max_len = 96 * 96;
  big.classes.resize(10, "x");
  const Data big_data = big;
  ParamStore full;
  Options defaults;
  auto vit = attn::test::builtins().models.create("vit", ModelArgs{attn::test::builtins(), ParamScope(full, rng), defaults, big_data});
  std::size_t count = 0;
  for (const auto& [name, var] : full.items()) count += var.value().size();
  CHECK(count == static_cast<std::size_t>(g["param_count_d2l"](0)));
  CHECK(count == 6457866);  // the number docs/datasets-and-models.md and the ViT page quote
}
