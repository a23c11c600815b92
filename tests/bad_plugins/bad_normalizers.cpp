// Normalizers that break their contract: the attention layer must name them.
//   wrong_weights: returns one key column too few
//   weighs_masked: softmax over every key, masked ones included
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
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.normalizers.add<WrongWeights>("wrong_weights", "returns one key column too few (a test plugin)");
  registry.normalizers.add<WeighsMasked>("weighs_masked", "ignores the mask (a test plugin)");
}
