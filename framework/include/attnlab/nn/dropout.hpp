// Dropout: zero each element with probability p while training (scaling the rest by 1/(1-p)),
// the identity otherwise. The mask comes from the run's Rng, so a run is reproducible.
#pragma once

#include <stdexcept>
#include <string>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/rng.hpp"

namespace attn {

class Dropout {
 public:
  explicit Dropout(float p) : p_(p) {
    if (!(p >= 0.0f && p < 1.0f))
      throw std::invalid_argument("dropout probability must be in [0, 1), got " + std::to_string(p));
  }
  Var operator()(const Var& x, Rng& rng, bool training) const { return dropout(x, p_, rng, training); }
  float p() const { return p_; }

 private:
  float p_;
};

}  // namespace attn
