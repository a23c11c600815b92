// Dataset `regression1d` (d2l 11.2, Nadaraya-Watson): 1-D regression of f with noise,
//   x_train = sorted(U(0, x_max)) (n_train points), y_train = f(x_train) + N(0, noise^2),
//   x_test = 0, test_step, 2 test_step, ... < x_max, y_test = f(x_test) (noise-free),
// where f (option `function`) is d2l 0.17's 2 sin(x) + x^0.8 (`d2l-0.17`, the default) or
// d2l 1.0's 2 sin(x) + x (`d2l-1.0`). Option `points` reads the training points from a file
// instead ("x y" per line, '#' comments): the same data as another program, e.g. d2l 1.0's
// PyTorch code (tests/golden/make_d2l_kernels.py).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "attnlab/data/dataset.hpp"
#include "attnlab/data/text.hpp"
#include "attnlab/file_kind.hpp"
#include "attnlab/registry.hpp"
#include "table_file.hpp"

namespace attn {
namespace {

using Function = float (*)(float);
float d2l_0_17(float x) { return 2.0f * std::sin(x) + std::pow(x, 0.8f); }
float d2l_1_0(float x) { return 2.0f * std::sin(x) + x; }

Function function_named(const Options& o) {
  const std::string name = o.get<std::string>("function", "d2l-0.17");
  if (name == "d2l-0.17") return d2l_0_17;
  if (name == "d2l-1.0") return d2l_1_0;
  throw SpecError(o.where("function"), "unknown function '" + name +
                                           "' (option 'function'): use d2l-0.17 (2 sin x + x^0.8) or d2l-1.0 (2 sin x + x)");
}

// "x y" per line; '#' starts a comment. At least two points.
std::vector<std::pair<float, float>> read_points(const std::string& path, const std::string& where) {
  std::vector<std::pair<float, float>> points;
  for (const TableRow& row : read_table(path, "points file", "points", where)) {
    const std::string at = row_place(path, row);
    if (row.fields.size() != 2)
      throw SpecError(where, at + "expected two numbers \"x y\", got \"" + utf8_shortened(row.text, 80) + "\"");
    float xy[2];
    for (int i = 0; i < 2; ++i) {
      const auto v = parse_option<float>(row.fields[static_cast<std::size_t>(i)]);
      if (!v) throw SpecError(where, at + (i ? "y" : "x") + " = " + utf8_shortened(row.fields[static_cast<std::size_t>(i)], 80) + " " +
                                         unreadable_float(row.fields[static_cast<std::size_t>(i)]));
      xy[i] = *v;
    }
    points.emplace_back(xy[0], xy[1]);
  }
  if (points.size() < 2) throw SpecError(where, "points file '" + path + "' holds fewer than 2 points");
  return points;
}

class Regression1d final : public DatasetSource {
 public:
  explicit Regression1d(const DatasetArgs& a)
      : f_(function_named(a.options)),
        n_train_(a.options.get<std::size_t>("n_train", 50, 2, 1000000)),
        x_max_(a.options.get<float>("x_max", 5.0f, 1e-3f, 1e6f)),
        noise_(a.options.get<float>("noise", 0.5f, 0.0f, 1e6f)),
        test_step_(a.options.get<float>("test_step", 0.1f, 1e-6f, 1e6f)),
        train_where_(first_written(a.options, {"n_train"})),
        test_where_(first_written(a.options, {"test_step", "x_max"})) {
    if (a.options.has("points")) {
      if (a.options.has("n_train") || a.options.has("noise"))
        throw SpecError(a.options.where("points"), "option 'points' reads the training points: drop 'n_train' and 'noise'");
      points_ = read_points(resolve_data_path(a.options.get<std::string>("points", ""), a.base_dir), a.options.where("points"));
    }
  }

  Data load(Rng& rng) const override {
    std::vector<std::pair<float, float>> train = points_;
    if (train.empty()) {
      std::vector<float> x(n_train_);
      for (float& v : x) v = rng.uniform() * x_max_;
      std::sort(x.begin(), x.end());
      for (float v : x) train.emplace_back(v, f_(v) + rng.normal(0.0f, noise_));
    }
    RegressionData d;
    d.x_train = Tensor::from_shape({train.size()});
    d.y_train = Tensor::from_shape({train.size()});
    for (std::size_t i = 0; i < train.size(); ++i) d.x_train(i) = train[i].first, d.y_train(i) = train[i].second;
    const std::size_t n_test = test_points();
    d.x_test = Tensor::from_shape({n_test});
    d.y_test = Tensor::from_shape({n_test});
    for (std::size_t i = 0; i < n_test; ++i) {
      d.x_test(i) = static_cast<float>(i) * test_step_;
      d.y_test(i) = f_(d.x_test(i));
    }
    return d;
  }

  // x and y of every training point and of the test grid, floats.
  Footprint footprint() const override {
    const double point = 2.0 * sizeof(float);
    return {{"the training points: " + std::to_string(n_train_), point * static_cast<double>(n_train_), train_where_},
            {"the test grid: x_max / test_step = " + std::to_string(test_points()) + " points", point * static_cast<double>(test_points()),
             test_where_}};
  }

 private:
  std::size_t test_points() const { return static_cast<std::size_t>(std::ceil(x_max_ / test_step_ - 1e-6)); }

  Function f_;
  std::size_t n_train_;
  float x_max_, noise_, test_step_;
  std::string train_where_, test_where_;
  std::vector<std::pair<float, float>> points_;  // from option `points`; empty: generated
};

}  // namespace

void register_dataset_regression1d(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<Regression1d>("regression1d", "1-D regression of 2 sin(x) + x^0.8 (or d2l 1.0's 2 sin(x) + x) plus noise, or points from a file");
}

}  // namespace attn
