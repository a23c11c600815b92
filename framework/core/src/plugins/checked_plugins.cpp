#include "attnlab/attention/checked_plugins.hpp"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

bool finite(const Tensor& t) {
  return std::all_of(t.begin(), t.end(), [](float v) { return std::isfinite(v); });
}

bool all_finite(const std::vector<Var>& vars) {
  return std::all_of(vars.begin(), vars.end(), [](const Var& p) { return finite(p.value()); });
}

std::string shape_text(const Var& x) { return x.defined() ? shape_str(x.shape()) : "(none)"; }

// The first masked entry of w [B, n_q, n_k] that is not exactly 0: "w[b, i, j] = value", or "".
std::string nonzero_masked_entry(const Tensor& w, const ValidLens& lens) {
  if (!lens) return "";
  const Tensor masked = mask_keys(constant(w), lens).value();
  const std::size_t n_q = w.shape()[1], n_k = w.shape()[2];
  for (std::size_t e = 0; e < w.size(); ++e)
    if (w.data()[e] != masked.data()[e])
      return "w[" + std::to_string(e / (n_q * n_k)) + ", " + std::to_string(e / n_k % n_q) + ", " +
             std::to_string(e % n_k) + "] = " + option_text(w.data()[e]);
  return "";
}

}  // namespace

Var CheckedScoring::operator()(const Var& q, const Var& k) const {
  Var scores;
  try {
    scores = plugin->score(q, k);
  } catch (const std::exception& e) {
    throw PluginFault(who + " threw in score(): " + e.what());
  }
  const Shape expected{q.dim(0), q.dim(1), k.dim(1)};
  if (!scores.defined() || scores.shape() != expected)
    throw PluginFault(who + " returned scores of shape " + shape_text(scores) + " for queries " + shape_str(q.shape()) +
                      " and keys " + shape_str(k.shape()) + "; expected " + shape_str(expected) + " = [B, n_q, n_k]");
  if (outside && !finite(scores.value()) && finite(q.value()) && finite(k.value()) && all_finite(params))
    throw PluginFault(who + " returned NaN or infinite scores from finite queries and keys");
  return scores;
}

CheckedScoring make_scoring(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                            std::size_t query_dim, std::size_t key_dim) {
  return {make_handle(kinds.scoring, choice, scope, ScoringArgs{scope, choice.options, query_dim, key_dim})};
}

Var CheckedNormalizer::operator()(const Var& scores, const ValidLens& lens) const {
  Var weights;
  try {
    weights = plugin->normalize(scores, lens);
  } catch (const std::exception& e) {
    throw PluginFault(who + " threw in normalize(): " + e.what());
  }
  if (!weights.defined() || weights.shape() != scores.shape())
    throw PluginFault(who + " returned weights of shape " + shape_text(weights) + " for scores " +
                      shape_str(scores.shape()) + "; expected the scores' shape [B, n_q, n_k]");
  if (!outside) return weights;
  if (!finite(weights.value()) && finite(scores.value()) && all_finite(params))
    throw PluginFault(who + " returned NaN or infinite weights from finite scores");
  if (const std::string entry = nonzero_masked_entry(weights.value(), lens); !entry.empty())
    throw PluginFault(who + " gave a masked key a weight, " + entry +
                      "; masked keys must get exactly 0 (mask_keys in autodiff/ops.hpp does it)");
  return weights;
}

CheckedNormalizer make_normalizer(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope) {
  return {make_handle(kinds.normalizers, choice, scope, NormalizerArgs{scope, choice.options})};
}

}  // namespace attn
