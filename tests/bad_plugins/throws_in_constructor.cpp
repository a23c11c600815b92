// One plugin of each kind whose constructor throws: validate reports each as a spec error at the
// key that names it, and no run starts.
#include <attnlab/plugin.hpp>

#include <stdexcept>

namespace {
[[noreturn]] void fail() { throw std::runtime_error("deliberate failure in the constructor"); }

class ThrowingScoring final : public attn::ScoringFunction {
 public:
  explicit ThrowingScoring(const attn::ScoringArgs&) { fail(); }
  attn::Var score(const attn::Var& q, const attn::Var& k) override { return attn::bmm(q, k, false, true); }
};

class ThrowingCell final : public attn::RnnCell {
 public:
  explicit ThrowingCell(const attn::CellArgs&) { fail(); }
  attn::Var project_inputs(const attn::Var& x) override { return x; }
  attn::CellState step(const attn::Var& x, const attn::CellState&) override { return {x}; }
  attn::CellState initial_state(std::size_t) const override { return {}; }
};

class ThrowingMode final : public attn::AttentionMode {
 public:
  explicit ThrowingMode(const attn::ModeArgs&) { fail(); }
  attn::FormedQkv form(const attn::AttentionSources&) override { return {}; }
  std::size_t query_dim() const override { return 0; }
  std::size_t key_dim() const override { return 0; }
  std::size_t value_dim() const override { return 0; }
};

class ThrowingNormalizer final : public attn::Normalizer {
 public:
  explicit ThrowingNormalizer(const attn::NormalizerArgs&) { fail(); }
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens&) override { return scores; }
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.scoring.add<ThrowingScoring>("throws_in_constructor", "throws when constructed (a test plugin)");
  registry.cells.add<ThrowingCell>("throwing_cell", "throws when constructed (a test plugin)");
  registry.modes.add<ThrowingMode>("throwing_mode", "throws when constructed (a test plugin)");
  registry.normalizers.add<ThrowingNormalizer>("throwing_normalizer", "throws when constructed (a test plugin)");
}
