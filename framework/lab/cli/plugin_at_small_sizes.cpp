#include "plugin_at_small_sizes.hpp"

namespace attn::cli {

void build_at_small_sizes(const Registries& r, PluginKind kind, const std::string& name, const Options& o, const ParamScope& s) {
  switch (kind) {
    case PluginKind::scoring: r.scoring.create(name, ScoringArgs{s, o, 8, 8}); return;
    case PluginKind::cell: r.cells.create(name, CellArgs{s, o, 8, 8}); return;
    case PluginKind::mode: r.modes.create(name, ModeArgs{s, o, 8, 8, 8}); return;
    case PluginKind::normalizer: r.normalizers.create(name, NormalizerArgs{s, o}); return;
    case PluginKind::positional: r.positional.create(name, PositionalArgs{s, o, 8, 2, 4, 64, false}); return;
  }
}

}  // namespace attn::cli
