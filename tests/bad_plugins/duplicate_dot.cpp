// A plugin that registers a name the built-ins already have ('dot'), beside a new one: loading
// it must fail as a whole (the new name is not registered either).
#include <attnlab/plugin.hpp>

namespace {
class AlsoDot final : public attn::ScoringFunction {
 public:
  explicit AlsoDot(const attn::ScoringArgs&) {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override { return attn::bmm(q, k, false, true); }
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.scoring.add<AlsoDot>("dot_again", "a fresh name");
  registry.scoring.add<AlsoDot>("dot", "clashes with the built-in");
}
