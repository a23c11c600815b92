// A positional scheme where the framework meets it: called only as its traits say it acts, its
// results checked for shape, positions past its table refused before the table is read.
#include <stdexcept>

#include "attnlab/plugins/checked_plugins.hpp"

namespace attn {
namespace {

std::string shape_or_none(const Var& x) { return x.defined() ? shape_str(x.shape()) : "(none)"; }

void require_shape(const std::string& who, const char* method, const Var& got, const Shape& expected) {
  if (got.defined() && got.shape() == expected) return;
  throw PluginFault(who + " returned from " + method + "() a tensor of shape " + shape_or_none(got) + "; expected " +
                    shape_str(expected));
}

}  // namespace

void CheckedPositional::require_covered(std::size_t first, std::size_t n) const {
  if (traits.max_positions == 0 || first + n <= traits.max_positions) return;
  throw std::invalid_argument(who + " covers positions 0.." + std::to_string(traits.max_positions - 1) + " (its table's length, max_len " +
                              std::to_string(traits.max_positions) + "); position " + std::to_string(first + n - 1) +
                              " is past it: raise max_len, or use a scheme without a table (sinusoidal, rope, alibi, t5_bias, none)");
}

Var CheckedPositional::add_to_input(const Var& x, std::size_t first) const {
  if (!traits.adds_to_input) return x;
  if (x.ndim() != 3 || x.dim(2) != dim)
    throw std::invalid_argument(who + " adds positions to [B, T, " + std::to_string(dim) + "], got " + shape_str(x.shape()));
  require_covered(first, x.dim(1));
  const Var out = guarded(who, "add_to_input", [&] { return plugin->add_to_input(x, first); });
  require_shape(who, "add_to_input", out, x.shape());
  return out;
}

Var CheckedPositional::rotate(const Var& x, std::size_t first, Role role) const {
  if (!traits.rotates) return x;
  require_covered(first, x.dim(1));
  const Var out = guarded(who, "rotate", [&] { return plugin->rotate(x, first, role); });
  require_shape(who, "rotate", out, x.shape());
  return out;
}

Var CheckedPositional::bias(std::size_t q0, std::size_t n_q, std::size_t k0, std::size_t n_k) const {
  if (!traits.biases_scores) return {};
  require_covered(std::min(q0, k0), std::max(q0 + n_q, k0 + n_k) - std::min(q0, k0));
  const Var out = guarded(who, "bias", [&] { return plugin->bias(q0, n_q, k0, n_k); });
  require_shape(who, "bias", out, {heads, n_q, n_k});
  return out;
}

CheckedPositional make_positional(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                                  const PositionalArgs& args) {
  CheckedPositional p{make_handle(kinds.positional, choice, scope, args)};
  p.traits = guarded(p.who, "traits", [&] { return p.plugin->traits(); });
  p.dim = args.dim, p.heads = args.heads, p.head_dim = args.head_dim;
  return p;
}

}  // namespace attn
