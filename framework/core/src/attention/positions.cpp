#include "attnlab/attention/positions.hpp"

#include "attnlab/errors.hpp"

namespace attn {

Positions::Positions(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope, const PositionsOf& model) {
  const PositionalArgs args{scope, choice.options, model.dim, model.heads, model.dim / model.heads, model.max_len, model.causal, model.init_std};
  scheme_ = std::make_shared<const CheckedPositional>(make_positional(kinds, choice, scope, args));
  if (scheme_->in_attention() && !model.no_attention_scores.empty())
    throw SpecError(choice.where, scheme_->who + (scheme_->traits.rotates ? " rotates queries and keys" : " biases attention scores") + ", but " +
                                      model.no_attention_scores + ": take a scheme that adds to the input (sinusoidal, learned) or none");
}

Var Positions::operator()(const Var& x, const ForwardContext& context, float dropout, std::size_t first) const {
  return context.dropout(scheme_->add_to_input(x, first), dropout);
}

PluginChoice positional_choice(const Options& model_options, const std::string& fallback) {
  return plugin_choice(model_options, "positional", fallback);
}

}  // namespace attn
