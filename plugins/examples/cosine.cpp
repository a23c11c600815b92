// An outside scoring plugin, built as its own shared library and loaded at run time:
//   score(q, k) = (q . k) / (|q| |k|) / temperature
// Build in this tree: meson builds it as build/plugins/examples/libattnlab-cosine.so.
// Build anywhere else (against installed headers, see docs/writing-a-scoring-plugin.md):
//   g++ -std=c++17 -O2 -shared -fPIC cosine.cpp -o cosine.so $(pkg-config --cflags --libs attnlab)
#include <attnlab/plugin.hpp>

class Cosine final : public attn::ScoringFunction {
 public:
  explicit Cosine(const attn::ScoringArgs& args)
      : temperature_(args.options.get<float>("temperature", 1.0f, 1e-6f, 1e6f)) {
    attn::require_same_size("cosine", args);
  }
  attn::Var score(const attn::Var& q, const attn::Var& k) override {  // [B,n_q,d], [B,n_k,d]
    return attn::bmm(attn::l2_normalize(q), attn::l2_normalize(k), false, true) / temperature_;
  }  // -> [B, n_q, n_k]

 private:
  float temperature_;
};

ATTNLAB_PLUGIN(registry) {
  registry.scoring.add<Cosine>("cosine", "cosine similarity / temperature (example outside plugin)");
}
