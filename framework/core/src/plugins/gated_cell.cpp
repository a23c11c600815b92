#include "attnlab/plugins/gated_cell.hpp"

#include <cmath>

#include "attnlab/autodiff/ops.hpp"

namespace attn {

GatedCell::GatedCell(const CellArgs& args, std::size_t gates) : hidden_(args.hidden_size) {
  const Init bound = Init::uniform(1.0f / std::sqrt(static_cast<float>(hidden_)));  // PyTorch's
  const std::size_t width = gates * hidden_;
  w_ih_ = args.params.param("W_ih", {args.input_size, width}, bound);
  w_hh_ = args.params.param("W_hh", {hidden_, width}, bound);
  b_ih_ = args.params.param("b_ih", {width}, bound);
  b_hh_ = args.params.param("b_hh", {width}, bound);
}

Var GatedCell::project_inputs(const Var& x) { return linear(x, w_ih_, b_ih_); }

Var GatedCell::recurrent(const Var& h) const { return linear(h, w_hh_, b_hh_); }

Var GatedCell::gate(const Var& v, std::size_t i) const {
  return slice(v, v.ndim() - 1, i * hidden_, (i + 1) * hidden_);
}

Var GatedCell::zeros(std::size_t batch) const {
  return constant(xt::zeros<float>({batch, hidden_}));
}

}  // namespace attn
