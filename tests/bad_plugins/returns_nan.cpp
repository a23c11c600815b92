// A scoring plugin that returns NaN scores (0/0) for finite inputs.
#include <attnlab/plugin.hpp>

namespace {
class ReturnsNan final : public attn::ScoringFunction {
 public:
  explicit ReturnsNan(const attn::ScoringArgs&) {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    const attn::Var s = attn::bmm(q, k, false, true);
    return s * 0.0f / 0.0f;
  }
};
}  // namespace

ATTNLAB_PLUGIN(registry) { registry.scoring.add<ReturnsNan>("returns_nan", "returns NaN scores (a test plugin)"); }
