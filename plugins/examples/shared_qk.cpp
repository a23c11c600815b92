// An outside attention mode: shared-QK attention (Kitaev et al. 2020, Reformer), where queries
// and keys go through ONE learned projection, so the scores of q.k are symmetric in q and k:
//   Q = query W,  K = key W,  V = value            W [d, dim] (option `dim`, default d)
// The query and key sources must have the same size d. Walkthrough:
// docs/writing-a-mode-plugin.md. Built by meson as build/plugins/examples/libattnlab-shared_qk.so.
#include <attnlab/plugin.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

class SharedQk final : public attn::AttentionMode {
 public:
  explicit SharedQk(const attn::ModeArgs& a)
      : dim_(a.options.get<std::size_t>("dim", a.query_dim, 1, 65536)), value_dim_(a.value_dim) {
    if (a.query_dim != a.key_dim)
      throw std::invalid_argument("shared_qk projects queries and keys with one matrix, so their sizes must agree; got " +
                                  std::to_string(a.query_dim) + " and " + std::to_string(a.key_dim) +
                                  " (use mode qkv with project: true instead)");
    w_ = a.params.param("W", {a.query_dim, dim_}, attn::Init::uniform(1.0f / std::sqrt(float(a.query_dim))));
  }

  attn::FormedQkv form(const attn::AttentionSources& s) override {
    return {attn::matmul(s.query, w_),   // Q [B, n_q, dim]
            attn::matmul(s.key, w_),     // K [B, n_k, dim]
            s.value};                    // V [B, n_k, d_v]
  }
  std::size_t query_dim() const override { return dim_; }
  std::size_t key_dim() const override { return dim_; }
  std::size_t value_dim() const override { return value_dim_; }

 private:
  std::size_t dim_, value_dim_;
  attn::Var w_;
};

ATTNLAB_PLUGIN(registry) {
  registry.modes.add<SharedQk>("shared_qk", "Q = query W, K = key W (one projection), V = value (example outside plugin)");
}
