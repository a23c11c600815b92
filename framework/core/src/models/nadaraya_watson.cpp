// Model `nadaraya_watson` (d2l 11.2): attention pooling in mode qkv over 1-D data,
//   f(x) = sum_i normalize_i(a(x, x_i)) y_i      queries x, keys x_i (training inputs), values y_i
// with any scoring function a (option `scoring`, default gaussian_learned; `gaussian` is the
// non-parametric kernel and has nothing to learn) and any normalizer (option `normalizer`,
// default softmax; d2l 1.0's kernels K(x - x_i) / sum K use a kernel scoring with `kernel`). Training, as d2l: every training point
// queries the OTHER training points (leave-one-out keys and values), loss = sum of squared
// errors. Metrics: test_mse (prediction on the test grid against the noise-free f), train_mse
// (leave-one-out) and, for gaussian_learned (K = exp(-(d w)^2 / 2), a Gaussian of standard
// deviation 1/|w|), learned_width = 1/|w|.
#include <cmath>
#include <optional>
#include <stdexcept>

#include "attnlab/attention/attention.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

const RegressionData& regression_data(const ModelArgs& a) {
  if (const auto* d = std::get_if<RegressionData>(&a.data)) return *d;
  throw std::invalid_argument("model 'nadaraya_watson' needs a regression dataset (regression1d)");
}

class NadarayaWatson final : public Model {
 public:
  explicit NadarayaWatson(const ModelArgs& a)
      : data_(regression_data(a)),
        attention_(a.registries, a.params.child("attention"), config(a.options), 1, 1, 1),
        trainable_(a.params.store().size() > 0) {
    for (const auto& [name, var] : a.params.store().items())
      if (name == "attention.scoring.w" && var.value().size() == 1) learned_w_ = var;
    const std::size_t n = data_.x_train.size();
    // Leave-one-out: row i holds every training point but i.
    a.params.keep_table("loo_keys", {n, n - 1});
    a.params.keep_table("loo_values", {n, n - 1});
    loo_keys_ = Tensor::from_shape({n, n - 1, 1});
    loo_values_ = Tensor::from_shape({n, n - 1, 1});
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0, k = 0; j < n; ++j)
        if (j != i) loo_keys_(i, k, 0) = data_.x_train(j), loo_values_(i, k++, 0) = data_.y_train(j);
  }

  std::size_t train_size() const override { return 1; }  // the whole training set is one batch
  // The test grid against every training point: scores, weights and their product's inputs.
  Footprint evaluation_footprint() const override {
    const double cells = static_cast<double>(data_.x_test.size()) * static_cast<double>(data_.x_train.size());
    return {{"the test grid's kernel maps: " + std::to_string(data_.x_test.size()) + " test x " +
                 std::to_string(data_.x_train.size()) + " training points, 4 floats each",
             cells * 4 * sizeof(float), ""}};
  }
  bool trainable() const override { return trainable_; }

  LossResult loss(const std::vector<std::size_t>&, const TrainingStep&) override {
    const Var err = loo_predictions() - constant(data_.y_train);
    LossResult r;
    r.loss = sum(square(err));  // d2l: MSELoss(reduction='none'), then .sum()
    r.sum = r.loss.item();
    r.count = 1.0;
    return r;
  }

  Metrics evaluate(bool) override {
    const Tensor test = test_attention().output.value();  // [1, n_test, 1]
    double se = 0;
    for (std::size_t i = 0; i < data_.x_test.size(); ++i) se += std::pow(test(0, i, 0) - data_.y_test(i), 2.0);
    const Tensor train = loo_predictions().value();
    double train_se = 0;
    for (std::size_t i = 0; i < data_.x_train.size(); ++i) train_se += std::pow(train(i) - data_.y_train(i), 2.0);
    Metrics m = {{"test_mse", se / static_cast<double>(data_.x_test.size())},
                 {"train_mse", train_se / static_cast<double>(data_.x_train.size())}};
    if (learned_w_) m["learned_width"] = 1.0 / std::abs(static_cast<double>(learned_w_->value()(0)));
    return m;
  }

  NamedTensors plot_data() override {
    Tensor prediction = test_attention().output.value();
    prediction.reshape({data_.x_test.size()});
    return {{"x_train", data_.x_train}, {"y_train", data_.y_train}, {"x_test", data_.x_test},
            {"y_truth", data_.y_test}, {"y_prediction", prediction}};
  }

  std::vector<ExampleAttention> record_attention(const std::vector<std::size_t>&) override {
    const AttentionResult r = test_attention();
    ExampleAttention ex;
    Tensor w = r.weights.value();  // [1, n_test, n_train]
    w.reshape({1, 1, w.shape()[1], w.shape()[2]});
    AttentionMap map{"kernel", std::move(w), {}, {}, {}, {}, {}};
    for (float x : data_.x_test) map.queries.push_back(label(x)), map.query_positions.push_back(x);
    // the keys are the training inputs, unless the mode forms them from the queries (vvv)
    const Tensor& keys = attention_.self_attention() ? data_.x_test : data_.x_train;
    for (float x : keys) map.keys.push_back(label(x)), map.key_positions.push_back(x);
    ex.maps.push_back(std::move(map));
    return {ex};
  }

 private:
  static AttentionConfig config(const Options& o) {
    AttentionConfig c;
    c.mode = plugin_choice(o, "mode", "qkv");
    c.scoring = plugin_choice(o, "scoring", "gaussian_learned");
    c.normalizer = plugin_choice(o, "normalizer", c.normalizer.name);
    return c;
  }

  static std::string label(float x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
  }

  static Var column(const Tensor& t) {  // [n] -> [1, n, 1]
    Tensor c = t;
    c.reshape({1, t.size(), 1});
    return constant(c);
  }

  // Every training point predicted from the others: [n]
  Var loo_predictions() const {
    const std::size_t n = data_.x_train.size();
    Tensor q = data_.x_train;
    q.reshape({n, 1, 1});
    const AttentionResult r = attention_({constant(q), constant(loo_keys_), constant(loo_values_)}, std::nullopt, ForwardContext::evaluation());
    return reshape(r.output, {n});
  }

  AttentionResult test_attention() const {
    return attention_({column(data_.x_test), column(data_.x_train), column(data_.y_train)}, std::nullopt, ForwardContext::evaluation());
  }

  const RegressionData& data_;
  Attention attention_;
  bool trainable_;
  std::optional<Var> learned_w_;  // gaussian_learned's w, whose kernel has standard deviation 1/|w|
  Tensor loo_keys_, loo_values_;
};

}  // namespace

void register_model_nadaraya_watson(Registry<Model, ModelArgs>& r) {
  r.add<NadarayaWatson>("nadaraya_watson",
                               "kernel regression as attention pooling (qkv: x_test, x_train, y_train)");
}

}  // namespace attn
