// Normalizer `sigmoid`: w_j = sigma(s_j + b) for each valid key on its own, 0 for masked keys.
// Rows need not sum to 1: keys do not compete. The bias b (option `bias`) defaults to -log n_k,
// n_k the number of keys, which keeps the row sums near 1 at the start of training (Ramapuram
// et al. 2024, "Theory, Analysis, and Best Practices for Sigmoid Self-Attention").
#include <attnlab/plugin.hpp>

#include <cmath>
#include <optional>

namespace {

class Sigmoid final : public attn::Normalizer {
 public:
  explicit Sigmoid(const attn::NormalizerArgs& a) {
    if (a.options.has("bias")) bias_ = a.options.get<float>("bias", 0.0f, -1e4f, 1e4f);
  }
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    const float b = bias_ ? *bias_ : -std::log(static_cast<float>(std::max<std::size_t>(scores.dim(2), 1)));
    return attn::mask_keys(attn::sigmoid(scores + b), lens);  // [B, n_q, n_k]
  }
  attn::NormalizerTraits traits() const override { return {false, false}; }

 private:
  std::optional<float> bias_;  // none: -log n_k
};

}  // namespace

void register_normalizer_sigmoid(attn::Registries& r) {
  r.normalizers.add<Sigmoid>("sigmoid", "sigma(s + b) per key, b = -log n_k (option bias); rows need not sum to 1");
}
