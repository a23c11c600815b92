// An attention layer assembled from plugins: a mode forms Q, K, V from the sources, a scoring
// function scores every (query, key) pair, and attention pooling takes the masked softmax and
// the weighted sum of the values.
//   (Q, K, V) = mode(sources);  S = score(Q, K) [B, n_q, n_k];  A = masked_softmax(S);  out = A V
#pragma once

#include <memory>

#include "attnlab/attention/plugin_choice.hpp"
#include "attnlab/attention/pooling.hpp"
#include "attnlab/registries.hpp"

namespace attn {

struct AttentionConfig {
  PluginChoice mode{"qkv", {}};
  PluginChoice scoring{"dot", {}};
  float dropout = 0.0f;  // on the attention weights, while training
};

// score(q, k) of a scoring plugin, checked: an exception, scores of the wrong shape, or NaN/inf
// scores from finite inputs become a PluginFault naming the plugin (`who`).
Var checked_score(ScoringFunction& scoring, const std::string& who, const Var& q, const Var& k);

class Attention {
 public:
  // Sizes of the three sources the layer will be called with.
  Attention(const Registries& registries, const ParamScope& scope, const AttentionConfig& config,
            std::size_t query_dim, std::size_t key_dim, std::size_t value_dim);

  AttentionResult operator()(const AttentionSources& sources, const ValidLens& lens,
                             Rng* rng = nullptr, bool training = false) const;
  std::size_t output_dim() const { return mode_->value_dim(); }

 private:
  std::shared_ptr<AttentionMode> mode_;
  std::shared_ptr<ScoringFunction> scoring_;
  std::string scoring_name_;  // registry.describe(): for errors
  float dropout_;
};

// Constructs a plugin and reports options it did not read as unknown (with a suggestion).
template <class Base, class Args>
std::shared_ptr<Base> make_plugin(const Registry<Base, Args>& registry, const PluginChoice& choice,
                                  const Args& args) {
  std::shared_ptr<Base> made;
  try {
    made = registry.create(choice.name, args);
  } catch (const RegistryError& e) {
    throw OptionError(choice.where, e.what());
  } catch (const OptionError&) {
    throw;
  } catch (const std::exception& e) {
    if (!registry.get(choice.name).library) throw;  // built-ins report their own errors
    throw PluginFault(registry.describe(choice.name) + " threw while being constructed: " + e.what());
  }
  choice.options.require_all_read(registry.kind() + " '" + choice.name + "'");
  return made;
}

}  // namespace attn
