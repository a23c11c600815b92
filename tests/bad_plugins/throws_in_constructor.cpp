// A scoring plugin whose constructor throws: the runs using it fail with a message naming it.
#include <attnlab/plugin.hpp>

#include <stdexcept>

namespace {
class ThrowsInConstructor final : public attn::ScoringFunction {
 public:
  explicit ThrowsInConstructor(const attn::ScoringArgs&) { throw std::runtime_error("deliberate failure in the constructor"); }
  attn::Var score(const attn::Var& q, const attn::Var& k) override { return attn::bmm(q, k, false, true); }
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.scoring.add<ThrowsInConstructor>("throws_in_constructor", "throws when constructed (a test plugin)");
}
