// Normalizers inside the models: the YAML option reaches every attention layer, the recorded
// maps are the normalizer's weights, and a normalizer's errors name it.
#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/registries.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;

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
