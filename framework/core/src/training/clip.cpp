#include <cmath>

#include "attnlab/training/optimizer.hpp"

namespace attn {

GradientNorms gradient_norms(const NamedVars& params) {
  GradientNorms norms;
  for (const auto& [name, var] : params) {
    if (!var.has_grad()) continue;
    double squares = 0.0;
    for (float g : var.grad()) squares += static_cast<double>(g) * g;
    norms.groups[name.substr(0, name.find('.'))] += squares;
    norms.total += squares;
  }
  norms.total = std::sqrt(norms.total);
  for (auto& group : norms.groups) group.second = std::sqrt(group.second);
  return norms;
}

bool clip_to_norm(const NamedVars& params, double norm, double max_norm) {
  if (!(max_norm > 0.0 && norm > max_norm)) return false;
  const auto s = static_cast<float>(max_norm / norm);
  for (const auto& item : params)
    if (item.second.has_grad()) item.second.node()->grad *= s;
  return true;
}

double clip_grad_norm(const NamedVars& params, double max_norm) {
  const double norm = gradient_norms(params).total;
  clip_to_norm(params, norm, max_norm);
  return norm;
}

}  // namespace attn
