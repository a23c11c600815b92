// Positional scheme `learned` (GPT, BERT, ViT): a table P [max_len, d], a parameter, added to
// the input:  X' = X + P[i]. It knows only the positions it was trained on: a position past
// max_len has no row (refused), and rows never reached in training stay at their initial
// values. Initialised N(0, std^2); option std (the model's default: 0.02; vit's option
// position_init).
#include <attnlab/plugin.hpp>

namespace {

class Learned final : public attn::PositionalScheme {
 public:
  explicit Learned(const attn::PositionalArgs& a)
      : table_(a.params.param("P", {a.max_len, a.dim}, attn::Init::normal(a.options.get<float>("std", a.init_std, 0.0f, 100.0f)))) {}
  attn::Var add_to_input(const attn::Var& x, std::size_t first) const override {
    return x + attn::slice(table_, 0, first, first + x.dim(1));  // [B, T, d] + [T, d]
  }
  attn::PositionalTraits traits() const override {
    attn::PositionalTraits t;
    t.adds_to_input = true;
    t.max_positions = table_.dim(0);
    return t;
  }

 private:
  attn::Var table_;  // [max_len, d]
};

}  // namespace

void register_positional_learned(attn::Registries& r) {
  r.positional.add<Learned>("learned", "a learned table [max_len, d] added to the input (GPT, ViT); positions < max_len");
}
