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
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update from the current gradients at learning rate lr (the schedule's rate of this update).
  virtual void step(float lr) = 0;
  // Every state tensor by name (e.g. "m/encoder.W"), for checkpoints; empty for stateless ones.
  virtual std::map<std::string, Tensor*> state() = 0;
};

// Gradient norms ||g|| = sqrt(sum of g^2): of all parameters, and of each parameter group (the
// first segment of the parameter's path: "encoder", "decoder", ...).
struct GradientNorms {
  double total = 0.0;
  std::map<std::string, double> groups;
};
GradientNorms gradient_norms(const NamedVars& params);

// Global-norm clipping (d2l grad_clipping): if ||g|| > max_norm (> 0), every gradient is
// scaled by max_norm / ||g||. Returns ||g|| before clipping.
double clip_grad_norm(const NamedVars& params, double max_norm);
// The same from norms already measured; returns whether it scaled the gradients.
bool clip_to_norm(const NamedVars& params, double norm, double max_norm);

}  // namespace attn
