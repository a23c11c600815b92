// Constructors and forwards of the standard layers (declared one per header in nn/).
#include "attnlab/nn/embedding.hpp"
#include "attnlab/nn/layer_norm.hpp"
#include "attnlab/nn/linear.hpp"

namespace attn {

Linear::Linear(const ParamScope& scope, std::size_t in, std::size_t out, bool bias,
               const Init& weight_init)
    : w_(scope.param("W", {in, out}, weight_init)),
      b_(bias ? scope.param("b", {out}, Init::zeros()) : Var()),
      bias_(bias) {}

// y = x W + b
Var Linear::operator()(const Var& x) const { return bias_ ? linear(x, w_, b_) : matmul(x, w_); }

Var Linear::with_relu(const Var& x) const { return bias_ ? linear_relu(x, w_, b_) : relu(matmul(x, w_)); }

Embedding::Embedding(const ParamScope& scope, std::size_t vocab, std::size_t dim, const Init& init)
    : table_(scope.param("weight", {vocab, dim}, init)) {}

LayerNorm::LayerNorm(const ParamScope& scope, std::size_t dim, float eps)
    : gamma_(scope.param("gamma", {dim}, Init::constant(1.0f))),
      beta_(scope.param("beta", {dim}, Init::zeros())),
      eps_(eps) {}

}  // namespace attn
