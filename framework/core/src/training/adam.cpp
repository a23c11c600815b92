// Optimizers `adam` (Kingma & Ba; PyTorch's torch.optim.Adam) and `adamw` (Loshchilov & Hutter,
// decoupled weight decay; torch.optim.AdamW):
//   adam:   g += weight_decay * p                      (L2 through the gradient)
//   adamw:  p -= lr * weight_decay * p                 (decay apart from the gradient)
//   both:   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  t += 1
//           p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
#include <cmath>

#include <xtensor/xmath.hpp>

#include "attnlab/training/optimizer.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

class Adam : public Optimizer {
 public:
  Adam(const OptimizerArgs& a, bool decoupled, float default_decay)
      : params_(a.params),
        beta1_(a.options.get<float>("beta1", 0.9f, 0.0f, 0.999999f)),
        beta2_(a.options.get<float>("beta2", 0.999f, 0.0f, 0.999999f)),
        eps_(a.options.get<float>("eps", 1e-8f, 0.0f, 1.0f)),
        weight_decay_(a.options.get<float>("weight_decay", default_decay, 0.0f, 1e6f)),
        decoupled_(decoupled),
        steps_(xt::zeros<float>({1})) {
    for (const auto& [name, p] : params_) {
      m_["m/" + name] = xt::zeros<float>(p.shape());
      v_["v/" + name] = xt::zeros<float>(p.shape());
    }
  }
  explicit Adam(const OptimizerArgs& a) : Adam(a, false, 0.0f) {}

  void step(float lr) override {
    steps_(0) += 1.0f;
    const double t = steps_(0);
    const float c1 = static_cast<float>(1.0 - std::pow(beta1_, t));
    const float c2 = static_cast<float>(1.0 - std::pow(beta2_, t));
    for (const auto& [name, p] : params_) {
      if (!p.has_grad()) continue;
      Tensor g = p.grad();
      if (weight_decay_ > 0.0f) {
        if (decoupled_) p.mutable_value() *= 1.0f - lr * weight_decay_;
        else g += weight_decay_ * p.value();
      }
      Tensor& m = m_.at("m/" + name);
      Tensor& v = v_.at("v/" + name);
      m = beta1_ * m + (1.0f - beta1_) * g;
      v = beta2_ * v + (1.0f - beta2_) * g * g;
      p.mutable_value() -= lr * (m / c1) / (xt::sqrt(v / c2) + eps_);
    }
  }

  std::map<std::string, Tensor*> state() override {
    std::map<std::string, Tensor*> out{{"steps", &steps_}};
    for (auto& [name, t] : m_) out[name] = &t;
    for (auto& [name, t] : v_) out[name] = &t;
    return out;
  }

 private:
  NamedVars params_;
  float beta1_, beta2_, eps_, weight_decay_;
  bool decoupled_;
  Tensor steps_;
  std::map<std::string, Tensor> m_, v_;
};

class AdamW final : public Adam {
 public:
  explicit AdamW(const OptimizerArgs& a) : Adam(a, true, 0.01f) {}  // PyTorch's default decay
};

}  // namespace

void register_optimizer_adam(Registry<Optimizer, OptimizerArgs>& r) {
  r.add<Adam>("adam", "Adam (options beta1, beta2, eps, weight_decay: L2 added to the gradient)");
  r.add<AdamW>("adamw", "AdamW, decoupled weight decay (options beta1, beta2, eps, weight_decay, default 0.01)");
}

}  // namespace attn
