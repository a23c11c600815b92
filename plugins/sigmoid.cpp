// Normalizer `sigmoid`: w_j = sigma(s_j + b) for each valid key on its own, 0 for masked keys.
// Rows need not sum to 1: keys do not compete. The bias b (option `bias`) defaults to -log n,
// n the row's number of valid keys, which keeps the row sums near 1 at the start of training
// (Ramapuram et al. 2024, "Theory, Analysis, and Best Practices for Sigmoid Self-Attention").
// n counts the row's valid keys, not the padded width of the batch, so a row gets the same bias
// in training (padded batches, causal rows) as when decoding one position at a time.
#include <attnlab/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace {

// -log n per row [B, n_q, 1], n the valid keys of the row (at least 1; all n_k when unmasked).
attn::Var valid_key_bias(const attn::Var& scores, const attn::ValidLens& lens) {
  const std::size_t batch = scores.dim(0), n_q = scores.dim(1), n_k = scores.dim(2);
  attn::Tensor bias = attn::Tensor::from_shape({batch, n_q, 1});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < n_q; ++i) {
      const int len = !lens ? static_cast<int>(n_k) : lens->dimension() == 1 ? (*lens)(b) : (*lens)(b, i);
      const std::size_t n = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(len, 0)), 1, std::max<std::size_t>(n_k, 1));
      bias(b, i, 0) = -std::log(static_cast<float>(n));
    }
  return attn::constant(std::move(bias));
}

class Sigmoid final : public attn::Normalizer {
 public:
  explicit Sigmoid(const attn::NormalizerArgs& a) {
    if (a.options.has("bias")) bias_ = a.options.get<float>("bias", 0.0f, -1e4f, 1e4f);
  }
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    const attn::Var shifted = bias_ ? scores + *bias_ : scores + valid_key_bias(scores, lens);
    return attn::mask_keys(attn::sigmoid(shifted), lens);  // [B, n_q, n_k]
  }
  attn::NormalizerTraits traits() const override { return {false, false}; }

 private:
  std::optional<float> bias_;  // none: -log (valid keys of the row)
};

}  // namespace

void register_normalizer_sigmoid(attn::Registries& r) {
  r.normalizers.add<Sigmoid>("sigmoid", "sigma(s + b) per key, b = -log n, n the row's valid keys (option bias); rows need not sum to 1");
}
