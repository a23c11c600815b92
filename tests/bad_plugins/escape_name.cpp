// A plugin whose name and description hold terminal escapes (ESC [ 31 m: red): attnlab must print
// them as text, never send them to the terminal raw.
#include <attnlab/plugin.hpp>

namespace {
class Escaped final : public attn::ScoringFunction {
 public:
  explicit Escaped(const attn::ScoringArgs&) {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override { return attn::bmm(q, k, false, true); }
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.scoring.add<Escaped>("red\x1b[31m", "turns the terminal \x1b[31mred (a test plugin)");
}
