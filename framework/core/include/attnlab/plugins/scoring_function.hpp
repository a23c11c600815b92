// Plugin kind 1: scoring functions a(q, k).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include "attnlab/autodiff/var.hpp"
#include "attnlab/nn/params.hpp"
#include "attnlab/options.hpp"

namespace attn {

// What a scoring function is constructed from.
struct ScoringArgs {
  ParamScope params;        // create parameters here: params.param("W_q", {d_q, h}, init)
  const Options& options;   // the plugin's options from the spec
  std::size_t query_dim;    // d_q
  std::size_t key_dim;      // d_k
};

// score(queries [B, n_q, d_q], keys [B, n_k, d_k]) -> scores [B, n_q, n_k].
// Masking is not the scoring function's business: the framework applies the masked softmax.
class ScoringFunction {
 public:
  virtual ~ScoringFunction() = default;
  virtual Var score(const Var& queries, const Var& keys) = 0;
  // When score(q, k) is exactly scale * q k^T (dot: 1, scaled_dot: 1 / sqrt(d)), return that
  // scale. With a softmax normalizer, attention then runs fused, dropout included
  // (softmax_attention in autodiff/ops.hpp: the scores are never stored). The framework reads
  // the scale once and checks it on a probe when it constructs the plugin, so a scale that
  // learns or changes must not be declared. The default: not a dot product.
  virtual std::optional<float> dot_product_scale() const { return std::nullopt; }
};

// For scoring functions that compare q and k entry by entry: refuses d_q != d_k, saying what to
// use instead.
void require_same_size(const char* scoring_name, const ScoringArgs& args);

}  // namespace attn
