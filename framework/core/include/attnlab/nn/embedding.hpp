// Embedding: a learned table of token vectors; ids [...] -> [..., dim]. Parameter: <scope>.weight
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/nn/params.hpp"

namespace attn {

class Embedding {
 public:
  Embedding(const ParamScope& scope, std::size_t vocab, std::size_t dim,
            const Init& init = Init::normal(1.0f));  // N(0, 1) like torch.nn.Embedding
  Var operator()(const IntTensor& ids) const { return embedding(table_, ids); }
  const Var& table() const { return table_; }

 private:
  Var table_;
};

}  // namespace attn
