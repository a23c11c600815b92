// An outside normalizer: softmax with a learned inverse temperature beta = exp(theta),
//   w = masked_softmax(beta * s),   theta initialised to -log(temperature) (option, default 1)
// beta > 1 sharpens the weights towards the best key, beta < 1 spreads them. Masked keys get
// exactly 0 and a row of valid length 0 is all zeros, as masked_softmax guarantees. Rows sum
// to 1 (the default traits). Walkthrough: docs/writing-a-normalizer-plugin.md. Built by meson as
// build/plugins/examples/libattnlab-learned_temperature.so.
#include <attnlab/plugin.hpp>

#include <cmath>

class LearnedTemperature final : public attn::Normalizer {
 public:
  explicit LearnedTemperature(const attn::NormalizerArgs& a)
      : theta_(a.params.param("theta", {1}, attn::Init::constant(
                                                  -std::log(a.options.get<float>("temperature", 1.0f, 1e-3f, 1e3f))))) {}

  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {  // [B, n_q, n_k]
    return attn::masked_softmax(scores * attn::exp(theta_), lens);                       // [B, n_q, n_k]
  }

 private:
  attn::Var theta_;  // [1], broadcast over the scores
};

ATTNLAB_PLUGIN(registry) {
  registry.normalizers.add<LearnedTemperature>("learned_temperature",
                                               "softmax(exp(theta) s), theta learned (example outside plugin)");
}
