// Teacher forcing and scheduled sampling (Bengio et al. 2015, "Scheduled Sampling for Sequence
// Prediction with Recurrent Neural Networks"). While training, each decoder input is the gold
// previous token with probability eps_i, else the model's own greedy prediction of the step
// before (no gradient flows through that choice). i counts the updates done before this one.
//   none:             eps_i = ratio
//   linear:           eps_i = max(min, ratio - slope * i)
//   exponential:      eps_i = ratio * k^i                   (k < 1)
//   inverse_sigmoid:  eps_i = ratio * k / (k + exp(i / k))  (k >= 1)
// With ratio 1 (the default) these are the paper's three decays. eps = 1 everywhere is plain
// teacher forcing; eps = 0 feeds the model only its own predictions, as decoding does.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

struct TeacherForcing {
  double ratio = 1.0;          // eps before any decay
  std::string decay = "none";  // none | linear | exponential | inverse_sigmoid
  double k = 0.0;              // exponential: the base (< 1); inverse_sigmoid: the scale (>= 1)
  double slope = 0.0;          // linear: the decrease per update
  double min = 0.0;            // linear: the floor
  // True when a decoder input may be the model's own prediction (a ratio below 1, or a decay).
  bool samples() const { return ratio < 1.0 || decay != "none"; }
};

// The names of the decays, in the order the docs list them.
const std::vector<std::string>& teacher_forcing_decays();

// eps_i: the probability of feeding the gold token at the update after `updates_done` updates.
double teacher_forcing_ratio(const TeacherForcing& forcing, std::size_t updates_done);

}  // namespace attn
