// Scoring function `dot`: a(q, k) = q . k   (queries and keys of the same size d)
#include <attnlab/plugin.hpp>

namespace {

class Dot final : public attn::ScoringFunction {
 public:
  explicit Dot(const attn::ScoringArgs& a) { attn::require_same_size("dot", a); }
  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    return attn::bmm(q, k, false, true);  // [B, n_q, d] x [B, n_k, d]^T -> [B, n_q, n_k]
  }
  std::optional<float> dot_product_scale() const override { return 1.0f; }
};

}  // namespace

void register_scoring_dot(attn::Registries& r) {
  r.scoring.add<Dot>("dot", "q . k (queries and keys of one size)");
}
