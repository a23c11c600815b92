// Attention mode `vvv`: self-attention, Q = K = V = one sequence.
// Option `causal` (bool, default false): query i sees keys 0..i only (a decoder), i.e. valid
// length min(len_b, i + 1) per query.
#include <attnlab/plugin.hpp>

namespace {

class Vvv final : public attn::ProjectedMode {
 public:
  explicit Vvv(const attn::ModeArgs& a)
      : ProjectedMode(a, a.query_dim, a.query_dim, a.query_dim),
        causal_(a.options.get<bool>("causal", false)) {}

  attn::FormedQkv form(const attn::AttentionSources& s) override { return project(s.query, s.query, s.query); }

  attn::ValidLens valid_lens(const attn::ValidLens& lens, std::size_t batch, std::size_t n_q,
                             std::size_t n_k) const override {
    if (!causal_) return lens;
    (void)n_k;  // = n_q: queries and keys are the same sequence
    attn::IntTensor causal = attn::IntTensor::from_shape({batch, n_q});  // [B, n_q]
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < n_q; ++i) {
        int len = static_cast<int>(i + 1);  // query i sees keys 0..i
        if (lens) len = std::min(len, lens->dimension() == 1 ? (*lens)(b) : (*lens)(b, i));
        causal(b, i) = len;
      }
    return causal;
  }

 private:
  bool causal_;
};

}  // namespace

void register_mode_vvv(attn::Registries& r) {
  r.modes.add<Vvv>("vvv", "self-attention: queries, keys and values from one sequence (option causal)");
}
