// Attention modes that misbehave where the framework meets them: one declares one more query
// feature than it forms (the attention layer must blame the mode, not the scoring function built
// for the declared size); one throws in form(); one drops the caller's valid lengths and one
// widens them (padding would be attended to: a mode may only tighten the mask).
#include <attnlab/plugin.hpp>

#include <stdexcept>

namespace {
class WrongQueryDim final : public attn::AttentionMode {
 public:
  explicit WrongQueryDim(const attn::ModeArgs& a) : args_dims_{a.query_dim, a.key_dim, a.value_dim} {}
  attn::FormedQkv form(const attn::AttentionSources& s) override { return {s.query, s.key, s.value}; }
  std::size_t query_dim() const override { return args_dims_[0] + 1; }  // wrong on purpose
  std::size_t key_dim() const override { return args_dims_[1]; }
  std::size_t value_dim() const override { return args_dims_[2]; }

 private:
  std::size_t args_dims_[3];
};

class ThrowsInForm final : public attn::AttentionMode {
 public:
  explicit ThrowsInForm(const attn::ModeArgs& a) : dims_{a.query_dim, a.key_dim, a.value_dim} {}
  attn::FormedQkv form(const attn::AttentionSources&) override { throw std::runtime_error("deliberate failure in form()"); }
  std::size_t query_dim() const override { return dims_[0]; }
  std::size_t key_dim() const override { return dims_[1]; }
  std::size_t value_dim() const override { return dims_[2]; }

 private:
  std::size_t dims_[3];
};
// Passes its sources through; valid_lens() drops the caller's lengths, or adds one to each.
class LoosensMask final : public attn::AttentionMode {
 public:
  LoosensMask(const attn::ModeArgs& a, bool drop) : dims_{a.query_dim, a.key_dim, a.value_dim}, drop_(drop) {}
  attn::FormedQkv form(const attn::AttentionSources& s) override { return {s.query, s.key, s.value}; }
  std::size_t query_dim() const override { return dims_[0]; }
  std::size_t key_dim() const override { return dims_[1]; }
  std::size_t value_dim() const override { return dims_[2]; }
  attn::ValidLens valid_lens(const attn::ValidLens& lens, std::size_t, std::size_t, std::size_t) const override {
    if (drop_ || !lens) return std::nullopt;
    attn::IntTensor wider = *lens;
    for (auto& l : wider) l += 1;
    return wider;
  }

 private:
  std::size_t dims_[3];
  bool drop_;
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.modes.add<WrongQueryDim>("wrong_query_dim", "declares query_dim() + 1 (a test plugin)");
  registry.modes.add<ThrowsInForm>("throws_in_form", "throws in form() (a test plugin)");
  registry.modes.add("drops_lens", "drops the caller's valid lengths (a test plugin)",
                     [](const attn::ModeArgs& a) { return std::make_unique<LoosensMask>(a, true); });
  registry.modes.add("widens_lens", "adds one to the caller's valid lengths (a test plugin)",
                     [](const attn::ModeArgs& a) { return std::make_unique<LoosensMask>(a, false); });
}
