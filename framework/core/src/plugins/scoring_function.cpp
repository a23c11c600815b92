#include "attnlab/plugins/scoring_function.hpp"

namespace attn {

void require_same_size(const char* scoring_name, const ScoringArgs& args) {
  if (args.query_dim != args.key_dim)
    throw std::invalid_argument(
        std::string("scoring function '") + scoring_name + "' compares queries and keys entry by entry, "
        "so they must have one size; got queries of size " + std::to_string(args.query_dim) +
        " and keys of size " + std::to_string(args.key_dim) +
        " (use 'general' or 'additive', or project them with the mode option project: true)");
}

}  // namespace attn
