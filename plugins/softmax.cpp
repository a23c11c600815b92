// Normalizer `softmax` (the default): w_j = exp(s_j) / sum_{i < len} exp(s_i) over the valid keys,
// 0 for masked keys; rows sum to 1. Every weight is positive: attention is spread over all keys.
#include <attnlab/plugin.hpp>

namespace {

class Softmax final : public attn::Normalizer {
 public:
  explicit Softmax(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    return attn::masked_softmax(scores, lens);  // [B, n_q, n_k]
  }
  attn::NormalizerTraits traits() const override {
    attn::NormalizerTraits t;
    t.masked_softmax = true;  // attention may run fused with a dot-product scoring function
    return t;
  }
};

}  // namespace

void register_normalizer_softmax(attn::Registries& r) {
  r.normalizers.add<Softmax>("softmax", "exp(s) / sum exp(s) over the valid keys; rows sum to 1 (the default)");
}
