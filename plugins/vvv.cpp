// Attention mode `vvv`: self-attention, Q = K = V = one sequence.
// Option `causal` (bool, default false): query i sees keys j <= i only (a decoder).
// Option `window` (int k, default 0 = off): query i sees keys with |i - j| < k only, a band of
// width 2k - 1 (with causal: i - k < j <= i, a causal convolution of width k). Self-attention
// restricted to a window is a convolution whose kernel is computed from the data: stacking L
// such layers sees L (k - 1) positions each way (1 + 2L (k - 1) in all), as L convolutions of width
// 2k - 1 do.
// The keys each query sees, after the caller's valid length len_b:
//   [max(0, i - k + 1), min(len_b, causal ? i + 1 : i + k))   (k = n_k without a window)
#include <attnlab/plugin.hpp>

namespace {

class Vvv final : public attn::ProjectedMode {
 public:
  explicit Vvv(const attn::ModeArgs& a)
      : ProjectedMode(a, a.query_dim, a.query_dim, a.query_dim),
        causal_(a.options.get<bool>("causal", false)),
        window_(a.options.get<std::size_t>("window", 0, 0, 1u << 20)) {}

  attn::FormedQkv form(const attn::AttentionSources& s) override { return project(s.query, s.query, s.query); }

  attn::ValidLens valid_lens(const attn::ValidLens& lens, std::size_t batch, std::size_t n_q,
                             std::size_t n_k) const override {
    if (!causal_ && window_ == 0) return lens;
    const bool ranges = window_ > 0;  // causal alone keeps the first keys: lengths suffice
    attn::IntTensor out = ranges ? attn::IntTensor::from_shape({batch, n_q, 2}) : attn::IntTensor::from_shape({batch, n_q});
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < n_q; ++i) {
        std::size_t end = causal_ ? i + 1 : ranges ? i + window_ : n_k;
        if (lens) end = std::min<std::size_t>(end, static_cast<std::size_t>(std::max(0, lens->dimension() == 1 ? (*lens)(b) : (*lens)(b, i))));
        const std::size_t first = ranges && i + 1 > window_ ? i + 1 - window_ : 0;
        if (!ranges) {
          out(b, i) = static_cast<int>(end);
          continue;
        }
        out(b, i, 0) = static_cast<int>(first);
        out(b, i, 1) = static_cast<int>(std::max(first, end));
      }
    return out;
  }
  attn::ModeTraits traits() const override { return {true}; }  // keys are the queries' sequence

 private:
  bool causal_;
  std::size_t window_;
};

}  // namespace

void register_mode_vvv(attn::Registries& r) {
  r.modes.add<Vvv>("vvv", "self-attention: queries, keys and values from one sequence (options causal, window)");
}
