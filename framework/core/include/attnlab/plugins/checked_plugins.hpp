// The plugins an attention layer calls, wrapped where the framework meets them: an exception
// or a result of the wrong shape becomes a PluginFault that names the plugin and the library it
// came from, instead of a shape error further on that blames someone else.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/plugin_choice.hpp"
#include "attnlab/plugins/plugin_kinds.hpp"

namespace attn {

// A constructed plugin with what is needed to check it.
template <class T>
struct PluginHandle {
  std::shared_ptr<T> plugin;
  std::string who;          // registry.describe(): "scoring function 'x' (plugin /path)"
  std::vector<Var> params;  // the parameters it created
  bool outside = false;     // loaded from a plugin library
};

// Constructs `choice` from `registry` with `args` (whose scope is `scope`), collecting what it created.
template <class T, class Args>
PluginHandle<T> make_handle(const Registry<T, Args>& registry, const PluginChoice& choice, const ParamScope& scope,
                            const Args& args) {
  PluginHandle<T> h;
  const std::size_t before = scope.store().size();
  h.plugin = make_plugin(registry, choice, args);
  h.who = registry.describe(choice.name);
  h.outside = static_cast<bool>(registry.get(choice.name).library);
  for (std::size_t i = before; i < scope.store().size(); ++i) h.params.push_back(scope.store().items()[i].second);
  return h;
}

struct CheckedScoring : PluginHandle<ScoringFunction> {
  // score(q, k), checked: scores must be [B, n_q, n_k]; an outside plugin's NaN/inf scores from
  // finite inputs and parameters are its fault. (Non-finite scores from built-ins, or from
  // non-finite inputs, are divergence, which the trainer reports as such.)
  Var operator()(const Var& q, const Var& k) const;
};
CheckedScoring make_scoring(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                            std::size_t query_dim, std::size_t key_dim);

struct CheckedNormalizer : PluginHandle<Normalizer> {
  // normalize(scores, lens), checked: weights must have the scores' shape; an outside plugin's
  // weights must be finite from finite scores and exactly 0 on masked keys.
  Var operator()(const Var& scores, const ValidLens& lens) const;
};
CheckedNormalizer make_normalizer(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope);

}  // namespace attn
