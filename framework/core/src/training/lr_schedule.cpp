#include "attnlab/training/lr_schedule.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/errors.hpp"

namespace attn {

const std::vector<std::string>& lr_schedule_names() {
  static const std::vector<std::string> names{"constant", "step", "cosine", "noam"};
  return names;
}

namespace {

// noam: lr * factor * d^-0.5 * min(u^-0.5, u * W^-1.5); its warmup is part of the formula.
double noam(const LrSchedule& s, double lr, double u) {
  const double w = static_cast<double>(std::max<std::size_t>(s.warmup, 1));
  return lr * s.factor / std::sqrt(static_cast<double>(std::max<std::size_t>(s.d_model, 1))) *
         std::min(1.0 / std::sqrt(u), u * std::pow(w, -1.5));
}

// The schedule after warmup at its own 0-based index j, over `length` updates.
double after_warmup(const LrSchedule& s, double lr, std::size_t j, std::size_t length) {
  if (s.name == "constant") return lr;
  if (s.name == "step") return lr * std::pow(s.gamma, static_cast<double>(j / std::max<std::size_t>(s.step_size, 1)));
  if (s.name == "cosine") {
    const double t = length == 0 ? 1.0 : std::min(1.0, static_cast<double>(j) / static_cast<double>(length));
    return s.min_lr + (lr - s.min_lr) * (1.0 + std::cos(M_PI * t)) / 2.0;
  }
  throw Error("unknown learning-rate schedule '" + s.name + "' (constant, step, cosine or noam)");
}

}  // namespace

double scheduled_lr(const LrSchedule& s, double lr, std::size_t update, std::size_t total_updates) {
  const std::size_t u = std::max<std::size_t>(update, 1);
  if (s.name == "noam") return noam(s, lr, static_cast<double>(u));
  if (u <= s.warmup) return lr * static_cast<double>(u) / static_cast<double>(s.warmup);
  const std::size_t length = total_updates > s.warmup ? total_updates - s.warmup : 0;
  return after_warmup(s, lr, u - s.warmup - 1, length);
}

}  // namespace attn
