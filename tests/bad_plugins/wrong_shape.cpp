// A scoring plugin that returns [B, n_q, n_q] instead of [B, n_q, n_k].
#include <attnlab/plugin.hpp>

namespace {
class WrongShape final : public attn::ScoringFunction {
 public:
  explicit WrongShape(const attn::ScoringArgs&) {}
  attn::Var score(const attn::Var& q, const attn::Var&) override { return attn::bmm(q, q, false, true); }
};
}  // namespace

ATTNLAB_PLUGIN(registry) { registry.scoring.add<WrongShape>("wrong_shape", "returns [B, n_q, n_q] (a test plugin)"); }
