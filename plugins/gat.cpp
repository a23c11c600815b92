// Scoring function `gat` (Velickovic et al. 2018, graph attention):
//   a(q, k) = LeakyReLU(a^T [q || k]) = LeakyReLU(a_q . q + a_k . k),  slope 0.2
// a_q [d_q], a_k [d_k] learned (the two halves of the paper's a), Glorot-uniform as the paper's
// code. An additive score: a sum of a query term and a key term through a nonlinearity, as
// Bahdanau's w_v' tanh(W_q q + W_k k) with h = 1 and no projection. Option `slope` (LeakyReLU's
// negative slope). Queries and keys may differ in size.
#include <attnlab/plugin.hpp>

#include <cmath>

namespace {

class Gat final : public attn::ScoringFunction {
 public:
  explicit Gat(const attn::ScoringArgs& a)
      : slope_(a.options.get<float>("slope", 0.2f, 0.0f, 1.0f)),
        a_q_(a.params.param("a_q", {a.query_dim, 1}, glorot(a.query_dim))),
        a_k_(a.params.param("a_k", {a.key_dim, 1}, glorot(a.key_dim))) {}

  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    const attn::Var by_query = attn::matmul(q, a_q_);                      // [B, n_q, 1]
    const attn::Var by_key = attn::transpose(attn::matmul(k, a_k_), 1, 2);  // [B, 1, n_k]
    return attn::leaky_relu(by_query + by_key, slope_);                     // [B, n_q, n_k]
  }

 private:
  static attn::Init glorot(std::size_t d) { return attn::Init::uniform(std::sqrt(6.0f / static_cast<float>(d + 1))); }

  float slope_;
  attn::Var a_q_, a_k_;
};

}  // namespace

void register_scoring_gat(attn::Registries& r) {
  r.scoring.add<Gat>("gat", "LeakyReLU(a_q . q + a_k . k) (graph attention, Velickovic et al.; option slope)");
}
