// Linear (dense) layer: y = x W + b, x [..., in], W [in, out], b [out].
// Parameters: <scope>.W, <scope>.b. PyTorch's nn.Linear stores weight = W^T ([out, in]).
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/params.hpp"

namespace attn {

class Linear {
 public:
  Linear(const ParamScope& scope, std::size_t in, std::size_t out, bool bias = true,
         const Init& weight_init = Init::xavier_uniform());
  Var operator()(const Var& x) const;  // [..., in] -> [..., out]
  Var with_relu(const Var& x) const;   // relu(x W + b) in one node (linear_relu), [..., in] -> [..., out]
  const Var& weight() const { return w_; }
  const Var& bias() const { return b_; }  // undefined without a bias

 private:
  Var w_, b_;
  bool bias_;
};

}  // namespace attn
