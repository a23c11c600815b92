// Positional scheme `none` (NoPE): no positions at all. Self-attention alone is blind to order
// (it sees a set), but a causal mask is not: query i sees i + 1 keys, and a decoder-only model
// can count them (Kazemnejad et al. 2023; Haviv et al. 2022). Trivially relative: nothing moves
// when every position shifts.
#include <attnlab/plugin.hpp>

namespace {

class NoPositions final : public attn::PositionalScheme {
 public:
  explicit NoPositions(const attn::PositionalArgs&) {}
  attn::PositionalTraits traits() const override {
    attn::PositionalTraits t;
    t.relative = true;
    return t;
  }
};

}  // namespace

void register_positional_none(attn::Registries& r) {
  r.positional.add<NoPositions>("none", "no positions (NoPE): order comes from the causal mask alone");
}
