// Scoring function `gaussian_learned`: a(q, k) = -1/2 (||q - k|| w)^2 with a learned width w
// (a scalar; d2l's parametric Nadaraya-Watson). Initial w ~ U(0, 1) as in d2l, or option `w`.
#include <attnlab/plugin.hpp>

namespace {

class GaussianLearned final : public attn::ScoringFunction {
 public:
  explicit GaussianLearned(const attn::ScoringArgs& a)
      : w_(a.params.param("w", {1}, a.options.has("w")
                                        ? attn::Init::constant(a.options.get<float>("w", 1.0f, -1e6f, 1e6f))
                                        : attn::Init::uniform(0.0f, 1.0f))) {
    a.options.get<float>("w", 1.0f);  // read either way, so a misspelt option suggests 'w'
    attn::require_same_size("gaussian_learned", a);
  }
  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    // -1/2 w^2 ||q - k||^2, w [1] broadcast over [B, n_q, n_k]
    return attn::squared_distances(q, k) * attn::square(w_) * -0.5f;
  }

 private:
  attn::Var w_;
};

}  // namespace

void register_scoring_gaussian_learned(attn::Registries& r) {
  r.scoring.add<GaussianLearned>("gaussian_learned",
                                 "-(||q - k|| w)^2 / 2 with a learned width w (option w: initial value)");
}
