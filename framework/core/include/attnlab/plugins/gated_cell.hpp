// A helper base for RNN cells whose gates are G blocks of width h computed as
// x W_ih + b_ih (all time steps at once, in project_inputs) plus h W_hh + b_hh (per step).
// Parameters: W_ih [in, G h], W_hh [h, G h], b_ih [G h], b_hh [G h], initialised like
// PyTorch's cells, U(-1/sqrt(h), 1/sqrt(h)).
#pragma once

#include "attnlab/plugins/rnn_cell.hpp"

namespace attn {

class GatedCell : public RnnCell {
 public:
  GatedCell(const CellArgs& args, std::size_t gates);

  Var project_inputs(const Var& x) override;  // [B, T, in] -> [B, T, G h]
  CellState initial_state(std::size_t batch) const override { return {zeros(batch)}; }

 protected:
  Var recurrent(const Var& h) const;             // h W_hh + b_hh: [B, h] -> [B, G h]
  Var gate(const Var& v, std::size_t i) const;   // block i of [B, G h] -> [B, h]
  Var zeros(std::size_t batch) const;            // [batch, h] of zeros
  std::size_t hidden() const { return hidden_; }

 private:
  std::size_t hidden_;
  Var w_ih_, w_hh_, b_ih_, b_hh_;
};

}  // namespace attn
