// An example positional scheme, built outside attnlab as a user's would be: xPos (Sun et al.
// 2022, "A Length-Extrapolatable Transformer"). RoPE's rotation, with each pair m of a query at
// position i scaled by zeta_m^(i / L) and of a key at j by zeta_m^(-j / L):
//   q_i' = R(i) q_i * zeta^(i / L),   k_j' = R(j) k_j * zeta^(-j / L)
//   q_i' . k_j' = sum_m zeta_m^((i - j) / L) (rotated pair products)
//   zeta_m = (2m / p + gamma) / (1 + gamma)  in (0, 1)
// so a key's weight decays with its distance, as ALiBi's does, and the scores still depend on
// the offset only (relative). Options: base (10000), gamma (0.4), scale_base (L, 512).
// Walkthrough: docs/writing-a-positional-plugin.md.
#include <attnlab/plugin.hpp>

#include <cmath>
#include <stdexcept>

namespace {

class XPos final : public attn::PositionalScheme {
 public:
  explicit XPos(const attn::PositionalArgs& a)
      : base_(a.options.get<double>("base", 10000.0, 2.0, 1e12)),
        gamma_(a.options.get<double>("gamma", 0.4, 1e-3, 100.0)),  // > 0: zeta_0 = gamma / (1 + gamma)
        scale_base_(a.options.get<double>("scale_base", 512.0, 1.0, 1e9)) {
    if (a.head_dim % 2 != 0) throw std::invalid_argument("xpos turns pairs of features: d_model / heads must be even, it is " + std::to_string(a.head_dim));
  }

  attn::Var rotate(const attn::Var& x, std::size_t first, attn::Role role) const override {  // [B', n, p]
    const std::size_t n = x.dim(1), p = x.dim(2);
    // zeta_0^(+-position / L) must stay a float (about e^+-87): far positions with a small L or gamma would not
    const double exponent = std::abs(std::log(gamma_ / (1.0 + gamma_))) * static_cast<double>(first + n) / scale_base_;
    if (exponent > 80.0)
      throw std::invalid_argument("xpos: position " + std::to_string(first + n - 1) + " with scale_base " + std::to_string(scale_base_) +
                                  " and gamma " + std::to_string(gamma_) + " scales queries and keys beyond float range; raise scale_base");
    attn::Tensor scale = attn::Tensor::from_shape({n, p});  // zeta_m^(+-i / L) on both features of pair m
    const double sign = role == attn::Role::queries ? 1.0 : -1.0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t m = 0; m < p / 2; ++m) {
        const double zeta = (2.0 * static_cast<double>(m) / static_cast<double>(p) + gamma_) / (1.0 + gamma_);
        scale(i, 2 * m) = scale(i, 2 * m + 1) = static_cast<float>(std::pow(zeta, sign * static_cast<double>(first + i) / scale_base_));
      }
    return attn::rotate_pairs(x, attn::rotary_angles(first, n, p, base_)) * attn::constant(std::move(scale));
  }

  attn::PositionalTraits traits() const override {
    attn::PositionalTraits t;
    t.rotates = true;
    t.relative = true;
    return t;
  }

 private:
  double base_, gamma_, scale_base_;
};

}  // namespace

ATTNLAB_PLUGIN(registries) {
  registries.positional.add<XPos>("xpos", "xPos (Sun et al. 2022): RoPE with a decay zeta^((i - j) / L) per feature pair; relative");
}
