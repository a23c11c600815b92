// Attention mode `qvv`: keys = values = one memory; the queries come from elsewhere.
//   Q = query, K = V = key   (e.g. Bahdanau: decoder state attends over encoder outputs)
#include <attnlab/plugin.hpp>

namespace {

class Qvv final : public attn::ProjectedMode {
 public:
  explicit Qvv(const attn::ModeArgs& a) : ProjectedMode(a, a.query_dim, a.key_dim, a.key_dim) {}
  attn::FormedQkv form(const attn::AttentionSources& s) override { return project(s.query, s.key, s.key); }
};

}  // namespace

void register_mode_qvv(attn::Registries& r) {
  r.modes.add<Qvv>("qvv", "keys = values = a memory (e.g. encoder outputs), queries from elsewhere");
}
