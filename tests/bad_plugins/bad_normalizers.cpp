// Normalizers that break their contract: the attention layer must name them.
//   wrong_weights: returns one key column too few
//   weighs_masked: softmax over every key, masked ones included
//   negative_weights: a masked softmax less 0.5 on the valid keys
//   sums_to_three: three times a masked softmax, while its traits say rows sum to 1
#include <attnlab/plugin.hpp>

namespace {
class WrongWeights final : public attn::Normalizer {
 public:
  explicit WrongWeights(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens&) override {
    return attn::slice(attn::softmax(scores), 2, 0, scores.dim(2) - 1);  // [B, n_q, n_k - 1]
  }
};

class WeighsMasked final : public attn::Normalizer {
 public:
  explicit WeighsMasked(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens&) override { return attn::softmax(scores); }
};

class NegativeWeights final : public attn::Normalizer {
 public:
  explicit NegativeWeights(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    const attn::Var w = attn::masked_softmax(scores, lens);
    return attn::mask_keys(w - 0.5f, lens);
  }
};

class SumsToThree final : public attn::Normalizer {
 public:
  explicit SumsToThree(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override { return attn::masked_softmax(scores, lens) * 3.0f; }
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.normalizers.add<NegativeWeights>("negative_weights", "weights below 0 (a test plugin)");
  registry.normalizers.add<SumsToThree>("sums_to_three", "rows summing to 3 where it declares 1 (a test plugin)");
  registry.normalizers.add<WrongWeights>("wrong_weights", "returns one key column too few (a test plugin)");
  registry.normalizers.add<WeighsMasked>("weighs_masked", "ignores the mask (a test plugin)");
}
