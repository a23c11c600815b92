// Positional scheme `rope` (Su et al. 2021, RoFormer): rotary position embedding. Each pair
// (2m, 2m+1) of a head's query and key features at position i turns by the angle i w_m,
// w_m = base^(-2m/p) (p: the head's size):
//   x'_2m   = x_2m cos(i w_m) - x_2m+1 sin(i w_m)
//   x'_2m+1 = x_2m sin(i w_m) + x_2m+1 cos(i w_m)
// A rotation by i then one by j meet in a dot product as one by j - i: q_i' . k_j' depends on the
// offset only (relative), though the angles at offsets never trained on are new to the model.
// Option: base (10000). The head size must be even. (The arithmetic: attnlab/attention/rotation.hpp.)
#include <attnlab/plugin.hpp>

#include <stdexcept>

namespace {

class Rope final : public attn::PositionalScheme {
 public:
  explicit Rope(const attn::PositionalArgs& a) : base_(a.options.get<double>("base", 10000.0, 2.0, 1e12)) {
    if (a.head_dim % 2 != 0)
      throw std::invalid_argument("positional scheme 'rope' turns pairs of features, so a head's size must be even; it is " +
                                  std::to_string(a.head_dim) + " (a width of " + std::to_string(a.dim) + " over " + std::to_string(a.heads) +
                                  " heads): choose the model's width (d_model; hidden for gat) and heads so that width / heads is even");
  }

  attn::Var rotate(const attn::Var& x, std::size_t first, attn::Role) const override {  // [B', n, p]
    return attn::rotate_pairs(x, attn::rotary_angles(first, x.dim(1), x.dim(2), base_));
  }

  attn::PositionalTraits traits() const override {
    attn::PositionalTraits t;
    t.rotates = true;
    t.relative = true;
    return t;
  }

 private:
  double base_;
};

}  // namespace

void register_positional_rope(attn::Registries& r) {
  r.positional.add<Rope>("rope", "rotary embedding (Su et al.): queries and keys turned by angles of their positions; relative");
}
