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
  PluginChoice mode{"qkv", {}, ""};
  PluginChoice scoring{"dot", {}, ""};
  float dropout = 0.0f;  // on the attention weights, while training
};

// A scoring function with what is needed to check it: its description and its parameters.
struct CheckedScoring {
  std::shared_ptr<ScoringFunction> function;
  std::string who;          // registry.describe(): "scoring function 'x' (plugin /path)"
  std::vector<Var> params;  // the parameters it created
  bool outside = false;     // loaded from a plugin library
  // score(q, k), checked: an exception or scores of the wrong shape become a PluginFault naming
  // the plugin; so do NaN/inf scores of an outside plugin from finite inputs and parameters.
  // (Non-finite scores from built-ins, or from non-finite inputs, are divergence, which the
  // trainer reports as such.)
  Var operator()(const Var& q, const Var& k) const;
};

// Constructs the scoring function `choice` under `scope` and collects what it created.
CheckedScoring make_scoring(const Registries& registries, const PluginChoice& choice, const ParamScope& scope,
                            std::size_t query_dim, std::size_t key_dim);

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
  CheckedScoring scoring_;
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
