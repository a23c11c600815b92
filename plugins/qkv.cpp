// Attention mode `qkv`: queries, keys and values from three distinct sources.
//   Q = query, K = key, V = value   (e.g. Nadaraya-Watson: x_test, x_train, y_train)
#include <attnlab/plugin.hpp>

namespace {

class Qkv final : public attn::ProjectedMode {
 public:
  explicit Qkv(const attn::ModeArgs& a) : ProjectedMode(a, a.query_dim, a.key_dim, a.value_dim) {}
  attn::FormedQkv form(const attn::AttentionSources& s) override { return project(s.query, s.key, s.value); }
};

}  // namespace

void register_mode_qkv(attn::Registries& r) {
  r.modes.add<Qkv>("qkv", "queries, keys and values from three distinct sources");
}
