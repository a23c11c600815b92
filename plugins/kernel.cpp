// Normalizer `kernel`: w_j = s_j / sum_{i < len} s_i for non-negative scores, d2l 1.0's
// Nadaraya-Watson weights K(q - k_j) / sum_i K(q - k_i) when the scoring function returns the
// kernel values (gaussian_kernel, boxcar, constant, epanechikov). A row whose valid scores are
// all 0 (no key inside a boxcar's window) gets all-zero weights, so its output is 0, where
// d2l's code would divide 0 by 0. A negative score is refused: it is not a kernel value.
#include <attnlab/plugin.hpp>

#include <stdexcept>

namespace {

class KernelNormalizer final : public attn::Normalizer {
 public:
  explicit KernelNormalizer(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    const attn::Var s = attn::mask_keys(scores, lens);                      // [B, n_q, n_k]
    for (float v : s.value())
      if (v < 0.0f)
        throw std::invalid_argument("got a negative score (" + attn::option_text(v) +
                                    "); the kernel normalizer needs kernel values >= 0: use a kernel scoring "
                                    "function (gaussian_kernel, boxcar, constant, epanechikov) or another normalizer");
    const attn::Var total = attn::sum(s, {2}, true);                        // [B, n_q, 1]
    attn::Tensor empty = attn::Tensor::from_shape(total.shape());           // 1 where the row sums to 0
    for (std::size_t i = 0; i < empty.size(); ++i) empty.data()[i] = total.value().data()[i] == 0.0f ? 1.0f : 0.0f;
    return s / (total + attn::constant(std::move(empty)));                  // 0 / 1 = 0 for empty rows
  }
  attn::NormalizerTraits traits() const override { return {true, true}; }
};

}  // namespace

void register_normalizer_kernel(attn::Registries& r) {
  r.normalizers.add<KernelNormalizer>("kernel", "s / sum s for kernel values s >= 0 (d2l 1.0's K / sum K); empty rows give 0");
}
