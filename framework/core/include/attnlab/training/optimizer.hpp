// Optimizers: a registered plugin kind. An optimizer updates every parameter of a model from
// its gradient; its state (moments, step count) is named so checkpoints can save and restore
// it exactly.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/autodiff/var.hpp"
#include "attnlab/options.hpp"

namespace attn {

struct OptimizerArgs {
  const Options& options;
  NamedVars params;  // name -> parameter
  float lr;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual void step() = 0;  // one update from the current gradients
  // Every state tensor by name (e.g. "m/encoder.W"), for checkpoints; empty for stateless ones.
  virtual std::map<std::string, Tensor*> state() = 0;
};

// Global-norm clipping (d2l grad_clipping): if ||g|| = sqrt(sum of all g^2) > max_norm,
// every gradient is scaled by max_norm / ||g||. Returns ||g|| before clipping.
double clip_grad_norm(const NamedVars& params, double max_norm);

}  // namespace attn
