// Learning-rate schedules: the rate of each optimizer update, from the base rate `lr`.
// Updates are counted from 1 (u = 1 is the first update of the run); T is the run's number of
// updates (epochs x batches per epoch), W the warmup.
//   warmup (any but noam): lr_u = lr * u / W for u <= W; the schedule below then starts at u = W + 1
//   constant:  lr_u = lr
//   step:      lr_u = lr * gamma^floor(j / step_size)                       j = u - W - 1
//   cosine:    lr_u = min_lr + (lr - min_lr) * (1 + cos(pi * j / (T - W))) / 2
//   noam:      lr_u = lr * factor * d_model^-0.5 * min(u^-0.5, u * W^-1.5)   (Vaswani et al. 2017)
// Each equals PyTorch's torch.optim.lr_scheduler (StepLR, CosineAnnealingLR, LambdaLR, warmup as
// LinearLR in a SequentialLR) stepped once per update; tests/golden/make_golden.py checks it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

struct LrSchedule {
  std::string name = "constant";  // constant | step | cosine | noam
  std::size_t warmup = 0;         // updates of linear warmup; noam: its own warmup (required)
  std::size_t step_size = 1;      // step: updates between decays
  double gamma = 0.1;             // step: the decay factor
  double min_lr = 0.0;            // cosine: the rate it ends at
  double factor = 1.0;            // noam: Vaswani's factor (multiplies lr)
  std::size_t d_model = 0;        // noam: the model width (required)
};

// The names of the schedules, in the order the docs list them.
const std::vector<std::string>& lr_schedule_names();

// The rate of update `update` (1-based) of a run of `total_updates` updates.
double scheduled_lr(const LrSchedule& schedule, double lr, std::size_t update, std::size_t total_updates);

}  // namespace attn
