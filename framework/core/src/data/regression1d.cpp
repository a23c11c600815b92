// Dataset `regression1d` (d2l 11.2, Nadaraya-Watson): f(x) = 2 sin(x) + x^0.8,
//   x_train = sorted(U(0, x_max)) (n_train points), y_train = f(x_train) + N(0, noise^2),
//   x_test = 0, test_step, 2 test_step, ... < x_max, y_test = f(x_test) (noise-free).
#include <algorithm>
#include <cmath>

#include "attnlab/data/dataset.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

float f(float x) { return 2.0f * std::sin(x) + std::pow(x, 0.8f); }

class Regression1d final : public DatasetSource {
 public:
  explicit Regression1d(const DatasetArgs& a)
      : n_train_(a.options.get<std::size_t>("n_train", 50, 2, 1000000)),
        x_max_(a.options.get<float>("x_max", 5.0f, 1e-3f, 1e6f)),
        noise_(a.options.get<float>("noise", 0.5f, 0.0f, 1e6f)),
        test_step_(a.options.get<float>("test_step", 0.1f, 1e-6f, 1e6f)) {}

  Data load(Rng& rng) const override {
    RegressionData d;
    std::vector<float> x(n_train_);
    for (float& v : x) v = rng.uniform() * x_max_;
    std::sort(x.begin(), x.end());
    d.x_train = Tensor::from_shape({n_train_});
    d.y_train = Tensor::from_shape({n_train_});
    for (std::size_t i = 0; i < n_train_; ++i) {
      d.x_train(i) = x[i];
      d.y_train(i) = f(x[i]) + rng.normal(0.0f, noise_);
    }
    const auto n_test = static_cast<std::size_t>(std::ceil(x_max_ / test_step_ - 1e-6));
    d.x_test = Tensor::from_shape({n_test});
    d.y_test = Tensor::from_shape({n_test});
    for (std::size_t i = 0; i < n_test; ++i) {
      d.x_test(i) = static_cast<float>(i) * test_step_;
      d.y_test(i) = f(d.x_test(i));
    }
    return d;
  }

 private:
  std::size_t n_train_;
  float x_max_, noise_, test_step_;
};

}  // namespace

void register_dataset_regression1d(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<Regression1d>("regression1d", "d2l's 1-D regression: f(x) = 2 sin(x) + x^0.8 plus noise");
}

}  // namespace attn
