// Normalizer `sparsemax` (Martins & Astudillo 2016): the Euclidean projection of the valid
// scores onto the probability simplex, w = argmin_{p >= 0, sum p = 1} ||p - s||^2
// = max(0, s - tau) with tau chosen so the row sums to 1. Keys far below the best get weight
// exactly 0, so the attention map is sparse. Masked keys get 0.
#include <attnlab/plugin.hpp>

namespace {

class Sparsemax final : public attn::Normalizer {
 public:
  explicit Sparsemax(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    return attn::sparsemax(scores, lens);  // [B, n_q, n_k]
  }
};

}  // namespace

void register_normalizer_sparsemax(attn::Registries& r) {
  r.normalizers.add<Sparsemax>("sparsemax", "projection of the scores onto the simplex: rows sum to 1, exact zeros");
}
