// Scoring function `scaled_dot`: a(q, k) = q . k / sqrt(d)
// For q, k with independent unit-variance entries, q . k has variance d; dividing by sqrt(d)
// keeps the scores at unit variance so the softmax does not saturate as d grows.
#include <attnlab/plugin.hpp>

#include <cmath>

namespace {

class ScaledDot final : public attn::ScoringFunction {
 public:
  explicit ScaledDot(const attn::ScoringArgs& a)
      : inv_sqrt_d_(1.0f / std::sqrt(static_cast<float>(a.key_dim))) {
    attn::require_same_size("scaled_dot", a);
  }
  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    return attn::bmm(q, k, false, true, inv_sqrt_d_);  // [B, n_q, n_k], scaled in the product
  }
  std::optional<float> dot_product_scale() const override { return inv_sqrt_d_; }

 private:
  float inv_sqrt_d_;
};

}  // namespace

void register_scoring_scaled_dot(attn::Registries& r) {
  r.scoring.add<ScaledDot>("scaled_dot", "q . k / sqrt(d) (Transformer)");
}
