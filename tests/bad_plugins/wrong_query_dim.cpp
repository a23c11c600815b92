// An attention mode that declares one more query feature than it forms: the attention layer
// must blame the mode, not the scoring function built for the declared size.
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
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.modes.add<WrongQueryDim>("wrong_query_dim", "declares query_dim() + 1 (a test plugin)");
  registry.modes.add<ThrowsInForm>("throws_in_form", "throws in form() (a test plugin)");
}
