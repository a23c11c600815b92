// Scoring functions that return kernel values, d2l 1.0 §11.2 ("attention pooling by
// similarity"). With x = ||q - k|| / width (option `width`, default 1):
//   gaussian_kernel  K(x) = exp(-x^2 / 2)
//   boxcar           K(x) = 1 if x < 1, else 0
//   constant         K(x) = 1
//   epanechikov      K(x) = max(0, 1 - x)
// Used with the `kernel` normalizer, w_j = K(x_j) / sum_i K(x_i) is Nadaraya-Watson
// regression with kernel K. gaussian_kernel with `kernel` equals `gaussian` with softmax (at
// width 1): exp(-d^2/2) / sum exp(-d^2/2) is the softmax of -d^2/2 (docs/concepts/normalizing-scores.md).
// boxcar and constant are piecewise constant: their gradient is 0, so they learn nothing.
#include <attnlab/plugin.hpp>

namespace {

class KernelFunction : public attn::ScoringFunction {
 public:
  KernelFunction(const attn::ScoringArgs& a, const char* name)
      : width_(a.options.get<float>("width", 1.0f, 1e-6f, 1e6f)) {
    attn::require_same_size(name, a);
  }

 protected:
  float width_;
};

class GaussianKernel final : public KernelFunction {
 public:
  explicit GaussianKernel(const attn::ScoringArgs& a) : KernelFunction(a, "gaussian_kernel") {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override {  // exp(-||q - k||^2 / (2 width^2))
    return attn::exp(attn::scale(attn::squared_distances(q, k), -0.5f / (width_ * width_)));
  }
};

class Boxcar final : public KernelFunction {
 public:
  explicit Boxcar(const attn::ScoringArgs& a) : KernelFunction(a, "boxcar") {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override {  // ||q - k|| < width
    const attn::Tensor d2 = attn::squared_distances(q, k).value();
    return attn::constant(xt::cast<float>(d2 < width_ * width_));
  }
};

class Constant final : public KernelFunction {
 public:
  explicit Constant(const attn::ScoringArgs& a) : KernelFunction(a, "constant") {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override {  // 1 for every pair
    return attn::constant(xt::ones<float>({q.dim(0), q.dim(1), k.dim(1)}));
  }
};

class Epanechikov final : public KernelFunction {
 public:
  explicit Epanechikov(const attn::ScoringArgs& a) : KernelFunction(a, "epanechikov") {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override {  // max(0, 1 - ||q - k|| / width)
    return attn::relu(1.0f - attn::distances(q, k) / width_);
  }
};

}  // namespace

void register_scoring_kernel_functions(attn::Registries& r) {
  r.scoring.add<GaussianKernel>("gaussian_kernel", "exp(-x^2 / 2), x = ||q - k|| / width (d2l 1.0; use with normalizer kernel)");
  r.scoring.add<Boxcar>("boxcar", "1 if ||q - k|| < width else 0 (d2l 1.0; use with normalizer kernel)");
  r.scoring.add<Constant>("constant", "1 for every key: the plain average (d2l 1.0; use with normalizer kernel)");
  r.scoring.add<Epanechikov>("epanechikov", "max(0, 1 - ||q - k|| / width) (d2l 1.0; use with normalizer kernel)");
}
