// Normalizers inside the models: the YAML option reaches every attention layer, the recorded
// maps are the normalizer's weights, and a normalizer's errors name it.
#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/attention/attention.hpp"
#include "attnlab/models/model.hpp"
#include "attnlab/registries.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;

namespace {

// Attention map [layer, head, n_q, n_k] of the first recorded example of `model`.
Tensor first_map(Model& model) {
  const auto maps = model.record_attention({0});
  REQUIRE_FALSE(maps.empty());
  REQUIRE_FALSE(maps[0].maps.empty());
  return maps[0].maps[0].weights;
}

// d2l's 1-D regression without noise: x_train spread over [0, 5), f(x) = 2 sin(x) + x^0.8.
Data regression(std::size_t n) {
  RegressionData d;
  d.x_train = Tensor::from_shape({n});
  d.y_train = Tensor::from_shape({n});
  d.x_test = Tensor::from_shape({n});
  d.y_test = Tensor::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    const float x = 5.0f * static_cast<float>(i) / static_cast<float>(n), t = x + 0.05f;
    d.x_train(i) = x, d.y_train(i) = 2 * std::sin(x) + std::pow(x, 0.8f);
    d.x_test(i) = t, d.y_test(i) = 2 * std::sin(t) + std::pow(t, 0.8f);
  }
  return d;
}

double row_sum(const Tensor& w, std::size_t q) {
  double total = 0.0;
  for (std::size_t k = 0; k < w.shape()[3]; ++k) total += w(0, 0, q, k);
  return total;
}

}  // namespace

TEST_CASE("the normalizer option reaches Nadaraya-Watson, and its maps are the normalizer's weights", "[normalizers][models]") {
  const Data data = regression(50);
  for (const std::string normalizer : {"softmax", "sparsemax", "sigmoid"}) {
    DYNAMIC_SECTION(normalizer) {
      ParamStore store;
      Rng rng(0);
      Options o;
      o.set("scoring", "gaussian");
      o.set("normalizer", normalizer);
      auto model = builtins().models.create("nadaraya_watson", ModelArgs{builtins(), ParamScope(store, rng), o, data});
      const Tensor w = first_map(*model);
      std::size_t zeros = 0;
      for (float x : w) zeros += x == 0.0f;
      if (normalizer == "sparsemax") CHECK(zeros > w.size() / 2);  // most keys exactly 0
      else CHECK(zeros == 0);
      if (normalizer == "sigmoid") CHECK(std::abs(row_sum(w, 0) - 1.0) > 1e-3);  // rows need not sum to 1
      else CHECK(row_sum(w, 0) == Approx(1.0).margin(1e-5));
    }
  }
}

// The sum of every row of a map [layer, head, query, key].
std::vector<double> row_sums(const Tensor& w) {
  const std::size_t n = w.shape()[3];
  std::vector<double> sums(w.size() / n, 0.0);
  for (std::size_t i = 0; i < w.size(); ++i) sums[i / n] += w.data()[i];
  return sums;
}

// Every recorded map (kind, layer, head) of the first example, from a fresh model with `options`.
std::vector<Tensor> maps_of(const std::string& model_name, const std::vector<std::pair<std::string, std::string>>& options) {
  static const Data data = attn::test::reverse_task(16);
  ParamStore store;
  Rng rng(3);
  Options o;
  for (const auto& [key, value] : options) o.set(key, value);
  auto model = builtins().models.create(model_name, ModelArgs{builtins(), ParamScope(store, rng), o, data});
  const auto examples = model->record_attention({0});
  std::vector<Tensor> maps;
  for (const AttentionMap& m : examples.at(0).maps) maps.push_back(m.weights);
  return maps;
}

TEST_CASE("the normalizer option reaches seq2seq (one head and several) and every Transformer block", "[normalizers][models]") {
  struct Case {
    std::string name, model, key;
    std::vector<std::pair<std::string, std::string>> options;
  };
  const std::vector<Case> cases = {
      {"seq2seq", "seq2seq", "attention.normalizer", {{"embed", "8"}, {"hidden", "8"}}},
      {"seq2seq, 2 heads", "seq2seq", "attention.normalizer", {{"embed", "8"}, {"hidden", "8"}, {"attention.heads", "2"}}},
      {"transformer", "transformer", "normalizer", {{"d_model", "8"}, {"ffn_hidden", "16"}, {"heads", "2"}, {"layers", "2"}}}};
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto with = [&](const std::string& normalizer) {
        auto options = c.options;
        options.emplace_back(c.key, normalizer);
        return maps_of(c.model, options);
      };
      const std::vector<Tensor> softmax = with("softmax"), sparsemax = with("sparsemax"), sigmoid = with("sigmoid");
      REQUIRE(softmax.size() == (c.model == "transformer" ? 3u : 1u));
      REQUIRE(sparsemax.size() == softmax.size());
      REQUIRE(sigmoid.size() == softmax.size());
      for (std::size_t m = 0; m < softmax.size(); ++m) {
        INFO("map " << m);
        REQUIRE(softmax[m].shape()[1] == (c.name == "seq2seq" ? 1u : 2u));
        CHECK_THAT(row_sums(softmax[m]), Catch::Matchers::Approx(std::vector<double>(row_sums(softmax[m]).size(), 1.0)).margin(1e-5));
        CHECK_THAT(row_sums(sparsemax[m]), Catch::Matchers::Approx(std::vector<double>(row_sums(sparsemax[m]).size(), 1.0)).margin(1e-5));
        const std::vector<double> sigmoid_sums = row_sums(sigmoid[m]);  // sigmoid rows need not sum to 1
        CHECK(std::count_if(sigmoid_sums.begin(), sigmoid_sums.end(), [](double sum) { return std::abs(sum - 1.0) > 1e-3; }) >
              static_cast<std::ptrdiff_t>(sigmoid_sums.size() / 2));
        // Same parameters, another normalizer: other weights in every layer. (Greedy decoding
        // may stop at another length, so the query rows and decoder keys both maps have are compared.)
        const auto& a = softmax[m].shape();
        const std::size_t rows = std::min(a[2], sparsemax[m].shape()[2]), keys = std::min(a[3], sparsemax[m].shape()[3]);
        for (std::size_t l = 0; l < a[0]; ++l) {
          double differs = 0;
          for (std::size_t h = 0; h < a[1]; ++h)
            for (std::size_t q = 0; q < rows; ++q)
              for (std::size_t k = 0; k < keys; ++k) differs += std::abs(softmax[m](l, h, q, k) - sparsemax[m](l, h, q, k));
          INFO("layer " << l);
          CHECK(differs > 1e-3);
        }
      }
    }
  }
}

TEST_CASE("an unknown normalizer is refused with the known ones and a suggestion", "[normalizers][errors]") {
  const Data data = regression(20);
  ParamStore store;
  Rng rng(0);
  Options o;
  o.set("normalizer", "sparsmax", "spec.yaml:9:17");
  CHECK_THROWS_WITH(builtins().models.create("nadaraya_watson", ModelArgs{builtins(), ParamScope(store, rng), o, data}),
                    Catch::Contains("unknown normalizer 'sparsmax'; did you mean 'sparsemax'?"));
}

TEST_CASE("the kernel normalizer refuses negative scores, naming itself", "[normalizers][errors]") {
  const Data data = regression(20);
  ParamStore store;
  Rng rng(0);
  Options o;
  o.set("scoring", "gaussian");  // -d^2/2 <= 0: not a kernel value
  o.set("normalizer", "kernel");
  auto model = builtins().models.create("nadaraya_watson", ModelArgs{builtins(), ParamScope(store, rng), o, data});
  CHECK_THROWS_WITH(model->evaluate(true), Catch::Contains("normalizer 'kernel'") && Catch::Contains("negative score"));
}

TEST_CASE("gaussian scoring with softmax is the Gaussian kernel with the kernel normalizer", "[normalizers][kernels]") {
  // softmax(-d^2 / 2) = exp(-d^2 / 2) / sum exp(-d^2 / 2) = K(d) / sum K(d): one model, two spellings.
  const Data data = regression(50);
  auto weights = [&](const std::string& scoring, const std::string& normalizer) {
    ParamStore store;
    Rng rng(0);
    Options o;
    o.set("scoring", scoring);
    o.set("normalizer", normalizer);
    auto model = builtins().models.create("nadaraya_watson", ModelArgs{builtins(), ParamScope(store, rng), o, data});
    return first_map(*model);
  };
  const Tensor softmax = weights("gaussian", "softmax");
  const Tensor kernel = weights("gaussian_kernel", "kernel");
  REQUIRE(softmax.shape() == kernel.shape());
  CHECK(xt::amax(xt::abs(softmax - kernel))() <= 1e-6f);
  CHECK(xt::amax(xt::abs(softmax - weights("epanechikov", "kernel")))() > 1e-2f);  // another kernel differs
}

TEST_CASE("sigmoid's default bias counts a row's valid keys: the same in a padded, causal batch as decoding one position at a time",
          "[normalizers][sigmoid]") {
  // One row of scores 0 over 10 key positions, 4 of them valid: each valid weight is
  // sigma(-log 4) = 1/5, so the row sums to 4/5 whatever the padding.
  const Options none;
  ParamStore store;
  Rng rng(3);
  auto sigmoid = builtins().normalizers.create("sigmoid", NormalizerArgs{ParamScope(store, rng, "n"), none});
  IntTensor four = IntTensor::from_shape({1});
  four(0) = 4;
  const Tensor w = sigmoid->normalize(constant(xt::zeros<float>({1, 1, 10})), four).value();
  for (std::size_t j = 0; j < 10; ++j) CHECK(w(0, 0, j) == Approx(j < 4 ? 0.2 : 0.0).margin(1e-7));

  // Causal self-attention over 2 sentences padded to 6 positions equals decoding each position
  // with a key/value cache of the positions before it (under the padded width as n the first
  // rows would get -log 6 in training and -log (i + 1) when decoding).
  AttentionConfig config;
  config.mode = {"vvv", {}};
  config.mode.options.set("causal", "true");
  config.scoring = {"scaled_dot", {}};
  config.normalizer = {"sigmoid", {}};
  config.multi_head = MultiHead{2, 8, false};
  const Attention attention(builtins(), ParamScope(store, rng, "a"), config, 8, 8, 8);
  const Var x = constant(randn({2, 6, 8}, rng));
  IntTensor lens = IntTensor::from_shape({2});
  lens(0) = 6, lens(1) = 4;  // the second sentence is padded
  const Tensor whole = attention({x, x, x}, lens).output.value();
  for (std::size_t b = 0; b < 2; ++b) {
    KeyValueCache cache;
    const Var row = slice(x, 0, b, b + 1);
    for (std::size_t t = 0; t < static_cast<std::size_t>(lens(b)); ++t) {
      const Var at = slice(row, 1, t, t + 1);
      const Tensor step = attention.extend({at, at, at}, cache).output.value();  // [1, 1, 8]
      INFO("sentence " << b << ", position " << t);
      for (std::size_t d = 0; d < 8; ++d) CHECK(step(0, 0, d) == Approx(whole(b, t, d)).margin(1e-5));
    }
  }
}
