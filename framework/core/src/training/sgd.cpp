// Optimizer `sgd`: p -= lr * (g + weight_decay * p), with optional momentum
// (PyTorch's form: b = momentum * b + g;  p -= lr * b).
#include "attnlab/training/optimizer.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

class Sgd final : public Optimizer {
 public:
  explicit Sgd(const OptimizerArgs& a)
      : params_(a.params),
        momentum_(a.options.get<float>("momentum", 0.0f, 0.0f, 1.0f)),
        weight_decay_(a.options.get<float>("weight_decay", 0.0f, 0.0f, 1e6f)) {
    if (momentum_ > 0.0f)
      for (const auto& [name, p] : params_) buffers_["momentum/" + name] = xt::zeros<float>(p.shape());
  }

  void step(float lr) override {
    for (const auto& [name, p] : params_) {
      if (!p.has_grad()) continue;
      Tensor g = p.grad();
      if (weight_decay_ > 0.0f) g += weight_decay_ * p.value();
      if (momentum_ > 0.0f) {
        Tensor& b = buffers_.at("momentum/" + name);
        b = momentum_ * b + g;
        p.mutable_value() -= lr * b;
      } else {
        p.mutable_value() -= lr * g;
      }
    }
  }

  std::map<std::string, Tensor*> state() override {
    std::map<std::string, Tensor*> out;
    for (auto& [name, t] : buffers_) out[name] = &t;
    return out;
  }

 private:
  NamedVars params_;
  float momentum_, weight_decay_;
  std::map<std::string, Tensor> buffers_;
};

}  // namespace

void register_optimizer_sgd(Registry<Optimizer, OptimizerArgs>& r) {
  r.add<Sgd>("sgd", "stochastic gradient descent (options momentum, weight_decay)");
}

}  // namespace attn
