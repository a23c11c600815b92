// Scoring function `gaussian`: a(q, k) = -1/2 ||q - k||^2, the Gaussian kernel of
// Nadaraya-Watson regression (softmax of it = normalised exp(-||q - k||^2 / 2)). No parameters.
#include <attnlab/plugin.hpp>

namespace {

class Gaussian final : public attn::ScoringFunction {
 public:
  explicit Gaussian(const attn::ScoringArgs& a) { attn::require_same_size("gaussian", a); }
  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    return attn::scale(attn::squared_distances(q, k), -0.5f);  // [B, n_q, n_k]
  }
};

}  // namespace

void register_scoring_gaussian(attn::Registries& r) {
  r.scoring.add<Gaussian>("gaussian", "-||q - k||^2 / 2 (Nadaraya-Watson kernel, no parameters)");
}
