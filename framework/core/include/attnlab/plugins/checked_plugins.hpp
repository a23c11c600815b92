// The plugins attention and RNN layers call, wrapped where the framework meets them: an
// exception or a result of the wrong shape becomes a PluginFault that names the plugin and the
// library it came from, instead of a shape error further on that blames someone else.
//   scoring:    scores [B, n_q, n_k] for queries [B, n_q, d] and keys [B, n_k, d]
//   normalizer: weights of the scores' shape [B, n_q, n_k]
//   mode:       Q [B, n_q, query_dim()], K [B, n_k, key_dim()], V [B, n_k, value_dim()]
//   cell:       projected inputs [B, T, width]; every step's state shaped as initial_state(B);
//               output [B, hidden_size]
//   positional: the input's shape, the queries' and keys' shape, biases [heads, n_q, n_k];
//               positions past the scheme's table refused before it is read
#pragma once

#include <new>

#include <memory>
#include <string>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/plugin_choice.hpp"
#include "attnlab/plugins/plugin_call.hpp"
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

// Calls f(), marked as `who`'s `method` (plugin_call.hpp); any exception but a PluginFault or a
// std::bad_alloc becomes one: "<who> threw in <method>(): ...", and so does a throw of something that is not a
// std::exception.
template <class F>
auto guarded(const std::string& who, const char* method, F&& f) -> decltype(f()) {
  const InPluginCall marker(who.c_str(), method);
  try {
    return f();
  } catch (const PluginFault&) {
    throw;
  } catch (const std::bad_alloc&) {  // memory that ran out (or a memory watch's ceiling): a matter of sizes, not of the plugin
    throw;
  } catch (const std::exception& e) {
    throw PluginFault(who + " threw in " + method + "(): " + e.what());
  } catch (...) {
    throw PluginFault(who + " threw in " + method + "() something that is not a std::exception");
  }
}

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
  std::optional<float> dot_scale;  // the plugin's dot_product_scale(), checked on a probe
};
CheckedScoring make_scoring(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                            std::size_t query_dim, std::size_t key_dim);

struct CheckedNormalizer : PluginHandle<Normalizer> {
  // normalize(scores, lens), checked: weights must have the scores' shape; an outside plugin's
  // weights must be finite from finite scores, never negative, exactly 0 on masked keys, and
  // each row with a valid key must sum to 1 when its traits say so.
  Var operator()(const Var& scores, const ValidLens& lens) const;
  bool masked_softmax = false;  // the plugin's traits().masked_softmax, checked on a probe
  bool rows_sum_to_one = true;  // the plugin's traits().rows_sum_to_one
};
CheckedNormalizer make_normalizer(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope);

struct CheckedMode : PluginHandle<AttentionMode> {
  // form(sources), checked against the sizes the mode declares (and one batch, one n_k) and
  // against its traits: the keys have as many positions as the source they come from (the
  // query's for self-attention, else the key's).
  FormedQkv form(const AttentionSources& sources) const;
  // valid_lens(...), checked: none, [B] or [B, n_q].
  ValidLens valid_lens(const ValidLens& lens, std::size_t batch, std::size_t n_q, std::size_t n_k) const;
  std::size_t query_dim() const { return query_dim_; }
  std::size_t key_dim() const { return key_dim_; }
  std::size_t value_dim() const { return value_dim_; }
  const ModeTraits& traits() const { return traits_; }

  std::size_t query_dim_ = 0, key_dim_ = 0, value_dim_ = 0;  // declared once, at construction
  ModeTraits traits_;
};
CheckedMode make_mode(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                      std::size_t query_dim, std::size_t key_dim, std::size_t value_dim);

struct CheckedCell : PluginHandle<RnnCell> {
  // x [B, T, in] -> [B, T, width]
  Var project_inputs(const Var& x) const;
  // The next state, which must have the parts and shapes of `state` (so every state keeps
  // those of the initial_state() the sequence started from).
  CellState step(const Var& projected_t, const CellState& state) const;
  // The state before the first step: at least one part, each [batch, ...].
  CellState initial_state(std::size_t batch) const;
  Var output(const CellState& state) const;  // [B, hidden_size]

  std::size_t hidden_size = 0;
};
CheckedCell make_cell(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                      std::size_t input_size, std::size_t hidden_size);

struct CheckedPositional : PluginHandle<PositionalScheme> {
  // Each is called as traits says it acts; otherwise it returns its input (or no bias).
  Var add_to_input(const Var& x, std::size_t first) const;                        // [B, T, d]
  Var rotate(const Var& x, std::size_t first, Role role) const;                   // [B', n, head_dim]
  Var bias(std::size_t q0, std::size_t n_q, std::size_t k0, std::size_t n_k) const;  // [heads, n_q, n_k] or none
  bool in_attention() const { return traits.rotates || traits.biases_scores; }
  // Refuses positions first .. first + n - 1 past max_positions, naming the scheme and its table.
  void require_covered(std::size_t first, std::size_t n) const;

  PositionalTraits traits = {};
  std::size_t dim = 0, heads = 0, head_dim = 0;
};
CheckedPositional make_positional(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                                  const PositionalArgs& args);

}  // namespace attn
