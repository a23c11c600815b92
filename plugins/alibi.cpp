// Positional scheme `alibi` (Press et al. 2022): no positions in the input; each head's scores
// get a penalty linear in the distance, with a fixed slope per head:
//   S_hij += s_h (j - i)     causal (j <= i), as the paper
//   S_hij += -s_h |i - j|    bidirectional (an encoder)
//   s_h = 2^(-8 (h + 1) / H) for heads h = 0 .. H - 1 of the H heads given a bias
// Option heads (H; default all): only the first H heads are biased, the others see no
// positions (x-transformers' alibi_num_heads). Relative; nothing is learned. (For H not a power
// of two the paper's code interleaves the slopes of the nearest powers; these are the formula
// above for every H, as d2l-neu's.)
#include <attnlab/plugin.hpp>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace {

class Alibi final : public attn::PositionalScheme {
 public:
  explicit Alibi(const attn::PositionalArgs& a)
      : heads_(a.heads), biased_(a.options.get<std::size_t>("heads", a.heads, 1, 1 << 20)), causal_(a.causal) {
    if (biased_ > heads_)
      throw attn::SpecError(a.options.where("heads"), "positional_options.heads (" + std::to_string(biased_) + ") is more than the model's " +
                                std::to_string(heads_) + " heads; give a number from 1 to " + std::to_string(heads_));
  }

  attn::Var bias(std::size_t q0, std::size_t n_q, std::size_t k0, std::size_t n_k) const override {
    attn::Tensor b = xt::zeros<float>({heads_, n_q, n_k});
    for (std::size_t h = 0; h < biased_; ++h) {
      const double slope = std::pow(2.0, -8.0 * static_cast<double>(h + 1) / static_cast<double>(biased_));
      for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j) {
          const double offset = static_cast<double>(k0 + j) - static_cast<double>(q0 + i);  // j - i
          b(h, i, j) = static_cast<float>(slope * (causal_ ? offset : -std::abs(offset)));
        }
    }
    return attn::constant(std::move(b));
  }

  attn::PositionalTraits traits() const override {
    attn::PositionalTraits t;
    t.biases_scores = true;
    t.relative = true;
    return t;
  }

 private:
  std::size_t heads_, biased_;
  bool causal_;
};

}  // namespace

void register_positional_alibi(attn::Registries& r) {
  r.positional.add<Alibi>("alibi", "a fixed penalty per head linear in the distance (Press et al.); relative, nothing learned");
}
