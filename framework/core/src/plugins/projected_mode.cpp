#include "attnlab/plugins/projected_mode.hpp"

namespace attn {

ProjectedMode::ProjectedMode(const ModeArgs& args, std::size_t query_in, std::size_t key_in,
                             std::size_t value_in)
    : project_(args.options.get<bool>("project", false)) {
  const auto dim = args.options.get<std::size_t>("dim", query_in, 1, 1 << 16);
  const auto value_dim = args.options.get<std::size_t>("value_dim", value_in, 1, 1 << 16);
  if (!project_) {
    if (args.options.has("dim") || args.options.has("value_dim"))
      throw SpecError(args.options.where(args.options.has("dim") ? "dim" : "value_dim"),
                        "options 'dim' and 'value_dim' need 'project: true'");
    query_dim_ = query_in, key_dim_ = key_in, value_dim_ = value_in;
    return;
  }
  query_dim_ = key_dim_ = dim;
  value_dim_ = value_dim;
  w_q_.emplace(args.params.child("W_q"), query_in, dim, false);
  w_k_.emplace(args.params.child("W_k"), key_in, dim, false);
  w_v_.emplace(args.params.child("W_v"), value_in, value_dim, false);
}

FormedQkv ProjectedMode::project(const Var& q, const Var& k, const Var& v) const {
  if (!project_) return {q, k, v};
  return {(*w_q_)(q), (*w_k_)(k), (*w_v_)(v)};  // [B, n_q, dim], [B, n_k, dim], [B, n_k, value_dim]
}

}  // namespace attn
