#include "attnlab/training/teacher_forcing.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/errors.hpp"

namespace attn {

const std::vector<std::string>& teacher_forcing_decays() {
  static const std::vector<std::string> names{"none", "linear", "exponential", "inverse_sigmoid"};
  return names;
}

double teacher_forcing_ratio(const TeacherForcing& f, std::size_t updates_done) {
  const double i = static_cast<double>(updates_done);
  double eps = f.ratio;
  if (f.decay == "linear") eps = std::max(f.min, f.ratio - f.slope * i);
  else if (f.decay == "exponential") eps = f.ratio * std::pow(f.k, i);
  else if (f.decay == "inverse_sigmoid") eps = f.ratio * f.k / (f.k + std::exp(std::min(i / f.k, 700.0)));
  else if (f.decay != "none")
    throw Error("unknown scheduled-sampling decay '" + f.decay + "' (none, linear, exponential or inverse_sigmoid)");
  return std::clamp(eps, 0.0, 1.0);
}

}  // namespace attn
