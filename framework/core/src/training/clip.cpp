#include <cmath>

#include "attnlab/training/optimizer.hpp"

namespace attn {

double clip_grad_norm(const NamedVars& params, double max_norm) {
  double total = 0.0;
  for (const auto& item : params)
    if (item.second.has_grad())
      for (float g : item.second.grad()) total += static_cast<double>(g) * g;
  const double norm = std::sqrt(total);
  if (max_norm > 0.0 && norm > max_norm) {
    const auto s = static_cast<float>(max_norm / norm);
    for (const auto& item : params)
      if (item.second.has_grad()) item.second.node()->grad *= s;
  }
  return norm;
}

}  // namespace attn
