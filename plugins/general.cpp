// Scoring function `general` (multiplicative, Luong): a(q, k) = q' W k,  W [d_q, d_k] learned.
// Queries and keys may differ in size.
#include <attnlab/plugin.hpp>

#include <cmath>

namespace {

class General final : public attn::ScoringFunction {
 public:
  explicit General(const attn::ScoringArgs& a)
      : w_(a.params.param("W", {a.query_dim, a.key_dim},
                          attn::Init::uniform(1.0f / std::sqrt(static_cast<float>(a.query_dim))))) {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    return attn::bmm(attn::matmul(q, w_), k, false, true);  // ([B, n_q, d_q] W) k^T -> [B, n_q, n_k]
  }

 private:
  attn::Var w_;
};

}  // namespace

void register_scoring_general(attn::Registries& r) {
  r.scoring.add<General>("general", "q' W k with a learned W (queries and keys may differ in size)");
}
