// Layer normalisation over the last axis: y = (x - mean) / sqrt(var + eps) * gamma + beta.
// Parameters: <scope>.gamma (ones), <scope>.beta (zeros).
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/params.hpp"

namespace attn {

class LayerNorm {
 public:
  LayerNorm(const ParamScope& scope, std::size_t dim, float eps = 1e-5f);
  Var operator()(const Var& x) const { return layer_norm(x, gamma_, beta_, eps_); }
  // The norm of x + y, the sum never stored (add_layer_norm): the Transformer's add & norm.
  Var of_sum(const Var& x, const Var& y) const { return add_layer_norm(x, y, gamma_, beta_, eps_); }

 private:
  Var gamma_, beta_;
  float eps_;
};

}  // namespace attn
