// Scoring function `additive` (Bahdanau): a(q, k) = w_v' tanh(W_q q + W_k k)
// W_q [d_q, h], W_k [d_k, h], w_v [h] learned, no biases (as d2l). Option `hidden` (h, default
// the key size). Queries and keys may differ in size. The sum over h is fused
// (attn::additive_scores), so the [B, n_q, n_k, h] tensor is never stored.
#include <attnlab/plugin.hpp>

#include <cmath>

namespace {

attn::Init linear_default(std::size_t fan_in) {  // PyTorch nn.Linear's U(-1/sqrt(in), 1/sqrt(in))
  return attn::Init::uniform(1.0f / std::sqrt(static_cast<float>(fan_in)));
}

class Additive final : public attn::ScoringFunction {
 public:
  explicit Additive(const attn::ScoringArgs& a)
      : hidden_(a.options.get<std::size_t>("hidden", a.key_dim, 1, 1 << 16)),
        w_q_(a.params.param("W_q", {a.query_dim, hidden_}, linear_default(a.query_dim))),
        w_k_(a.params.param("W_k", {a.key_dim, hidden_}, linear_default(a.key_dim))),
        w_v_(a.params.param("w_v", {hidden_}, linear_default(hidden_))) {}

  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    return attn::additive_scores(attn::matmul(q, w_q_),   // [B, n_q, h]
                                 attn::matmul(k, w_k_),   // [B, n_k, h]
                                 w_v_);                   // -> [B, n_q, n_k]
  }

 private:
  std::size_t hidden_;
  attn::Var w_q_, w_k_, w_v_;
};

}  // namespace

void register_scoring_additive(attn::Registries& r) {
  r.scoring.add<Additive>("additive", "w_v' tanh(W_q q + W_k k) (Bahdanau; option hidden)");
}
