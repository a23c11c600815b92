// A scoring plugin that constructs fine but throws whenever it scores: the runs using it must
// be marked failed with this message while the others finish.
#include <attnlab/plugin.hpp>

#include <stdexcept>

namespace {
class ThrowsInScore final : public attn::ScoringFunction {
 public:
  explicit ThrowsInScore(const attn::ScoringArgs&) {}
  attn::Var score(const attn::Var&, const attn::Var&) override {
    throw std::runtime_error("deliberate failure in score()");
  }
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.scoring.add<ThrowsInScore>("throws_in_score", "throws in score() (a test plugin)");
}
