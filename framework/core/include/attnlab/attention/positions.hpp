// A model's positional scheme (plugins/positional_scheme.hpp), chosen by its spec keys
// `positional: <name>` and `positional_options.*`: one object that adds positions to the
// model's input and goes, with every self-attention layer, where queries meet keys.
//   X = dropout(scheme.add_to_input(X, first))       (sinusoidal, learned; others: X itself)
//   self-attention: rotated queries and keys, biased scores   (rope, alibi, t5_bias)
// Cross-attention (a decoder reading its encoder) takes no positions: its queries and keys are
// positions of two different sequences.
#pragma once

#include <memory>
#include <string>

#include "attnlab/nn/forward_context.hpp"
#include "attnlab/options.hpp"
#include "attnlab/plugins/checked_plugins.hpp"

namespace attn {

// What a model tells its scheme about itself.
struct PositionsOf {
  std::size_t dim = 0, heads = 1;  // the model's width, and its attention heads (dim % heads == 0)
  std::size_t max_len = 0;         // the most positions it will be given
  bool causal = false;             // its self-attention is causal
  float init_std = 0.02f;          // its scale for a learned table
  // Why the model has no attention scores for a scheme to rotate or bias ("" when it has):
  // such a scheme is then refused at the `positional` key.
  std::string no_attention_scores = {};
};

class Positions {
 public:
  // The scheme `choice` names; its parameters are <scope>.* (the model's "positional" scope).
  Positions(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope, const PositionsOf& model);

  // x [B, T, d] at positions first .. first + T - 1, with the scheme's positions added, then dropout.
  Var operator()(const Var& x, const ForwardContext& context, float dropout, std::size_t first = 0) const;
  // The scheme for the model's self-attention layers (AttentionConfig::positions), or none when
  // it acts on the input only.
  std::shared_ptr<const CheckedPositional> in_attention() const { return scheme_->in_attention() ? scheme_ : nullptr; }
  // Positions covered (a table's length); 0: any.
  std::size_t max_positions() const { return scheme_->traits.max_positions; }

 private:
  std::shared_ptr<const CheckedPositional> scheme_;
};

// The model's `positional` key (default `fallback`) with its `positional_options.*`.
PluginChoice positional_choice(const Options& model_options, const std::string& fallback);

}  // namespace attn
