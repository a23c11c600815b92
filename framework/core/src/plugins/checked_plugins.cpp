#include "attnlab/plugins/checked_plugins.hpp"

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

// The keys [first, end) that lens lets query q of example b see, of n_k (none: all of them).
std::pair<long, long> key_range(const ValidLens& lens, std::size_t b, std::size_t q, std::size_t n_k) {
  const long all = static_cast<long>(n_k);
  if (!lens) return {0, all};
  const IntTensor& l = *lens;
  if (l.dimension() == 1) return {0, std::min<long>(l(b), all)};
  if (l.dimension() == 2) return {0, std::min<long>(l(b, q), all)};
  return {std::max<long>(l(b, q, 0), 0), std::min<long>(l(b, q, 1), all)};
}

// The first weight below 0, or the first row with a valid key whose weights do not sum to 1
// (when `rows_sum_to_one`), as "w[b, i, j] = v" or "row [b, i] sums to s"; "" if none.
std::string unnormalized_entry(const Tensor& w, const ValidLens& lens, bool rows_sum_to_one) {
  const std::size_t batch = w.shape()[0], n_q = w.shape()[1], n_k = w.shape()[2];
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < n_q; ++i) {
      double total = 0.0;
      for (std::size_t j = 0; j < n_k; ++j) {
        const float v = w(b, i, j);
        if (v < 0.0f) return "w[" + std::to_string(b) + ", " + std::to_string(i) + ", " + std::to_string(j) + "] = " + option_text(v);
        total += v;
      }
      const auto [first, end] = key_range(lens, b, i, n_k);
      if (rows_sum_to_one && end > first && std::fabs(total - 1.0) > 1e-3)
        return "row [" + std::to_string(b) + ", " + std::to_string(i) + "] sums to " + option_text(total) + ", not 1";
    }
  return "";
}

// The first query for which `out` lets through a key that `given` masks: a mode may only
// tighten the mask it was given (a causal or windowed mode), never drop or widen it. "" if none.
std::string widened_query(const ValidLens& given, const ValidLens& out, std::size_t batch, std::size_t n_q, std::size_t n_k) {
  if (!given) return "";
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t q = 0; q < n_q; ++q) {
      const auto [first, end] = key_range(out, b, q, n_k);
      const auto [allowed_first, allowed_end] = key_range(given, b, q, n_k);
      if (first < end && (first < allowed_first || end > allowed_end))
        return "query " + std::to_string(q) + " of example " + std::to_string(b) + " sees keys [" + std::to_string(first) + ", " +
               std::to_string(end) + "), where the caller's valid lengths allow [" + std::to_string(allowed_first) + ", " +
               std::to_string(allowed_end) + ")";
    }
  return "";
}

// " [B, n, d]"-style text of what a formed tensor should be, with the known sizes filled in.
std::string expected_text(std::size_t batch, const std::string& n, std::size_t d) {
  return "[" + std::to_string(batch) + ", " + n + ", " + std::to_string(d) + "]";
}

void require_formed(const std::string& who, const char* what, const Var& x, std::size_t batch, std::size_t n,
                    std::size_t d, const char* declared) {
  if (x.defined() && x.ndim() == 3 && x.dim(0) == batch && (n == 0 || x.dim(1) == n) && x.dim(2) == d) return;
  throw PluginFault(who + " formed " + what + " of shape " + shape_text(x) + "; expected " +
                    expected_text(batch, n ? std::to_string(n) : "n", d) + " (" + declared + " = " +
                    std::to_string(d) + ", as the mode declares)");
}

// `got` must have the parts and shapes of `like`; `what` names the state being checked.
void require_same_state(const std::string& who, const CellState& got, const CellState& like, const std::string& what) {
  bool same = got.size() == like.size();
  for (std::size_t p = 0; same && p < got.size(); ++p) same = got[p].defined() && got[p].shape() == like[p].shape();
  if (same) return;
  auto text = [](const CellState& s) {
    std::string out = "{";
    for (std::size_t p = 0; p < s.size(); ++p) out += (p ? ", " : "") + shape_text(s[p]);
    return out + "}";
  };
  throw PluginFault(who + " " + what + " " + text(got) + "; expected " + text(like) +
                    " (the parts and shapes of initial_state(), kept from step to step)");
}

// Fixed inputs for checking what a plugin declares about itself: x_e = sin(frequency e + 1)
// (no random draws, which would shift the run's random stream).
Var probe(const Shape& shape, float frequency) {
  Tensor x = Tensor::from_shape(shape);
  for (std::size_t e = 0; e < x.size(); ++e) x.data()[e] = std::sin(frequency * static_cast<float>(e) + 1.0f);
  return constant(std::move(x));
}

// "" when a plugin's result on a probe equals what it declared to be, to float rounding;
// otherwise what differs.
std::string probe_difference(const Var& got, const Var& declared) {
  if (!got.defined() || got.shape() != declared.shape())
    return "on a probe it returned shape " + shape_text(got) + " where " + shape_str(declared.shape()) + " was expected";
  for (std::size_t e = 0; e < got.value().size(); ++e) {
    const float a = got.value().data()[e], b = declared.value().data()[e];
    if (!(std::fabs(a - b) <= 1e-5f * (1.0f + std::fabs(b))))
      return "on a probe it gave " + option_text(a) + " where that gives " + option_text(b);
  }
  return "";
}

}  // namespace

Var CheckedScoring::operator()(const Var& q, const Var& k) const {
  const Var scores = guarded(who, "score", [&] { return plugin->score(q, k); });
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
  CheckedScoring s{make_handle(kinds.scoring, choice, scope, ScoringArgs{scope, choice.options, query_dim, key_dim}), std::nullopt};
  s.dot_scale = guarded(s.who, "dot_product_scale", [&] { return s.plugin->dot_product_scale(); });
  if (!s.dot_scale) return s;
  const Var q = probe({1, 3, query_dim}, 0.7f), k = probe({1, 4, key_dim}, 1.3f);
  const std::string differs =
      query_dim != key_dim ? "its queries and keys differ in size" : probe_difference(s(q, k), bmm(q, k, false, true, *s.dot_scale));
  if (!differs.empty())
    throw SpecError(choice.where, s.who + " declares dot_product_scale() = " + option_text(*s.dot_scale) +
                                      ", but " + differs + " (return std::nullopt unless score(q, k) is exactly scale q k^T)");
  return s;
}

Var CheckedNormalizer::operator()(const Var& scores, const ValidLens& lens) const {
  const Var weights = guarded(who, "normalize", [&] { return plugin->normalize(scores, lens); });
  if (!weights.defined() || weights.shape() != scores.shape())
    throw PluginFault(who + " returned weights of shape " + shape_text(weights) + " for scores " +
                      shape_str(scores.shape()) + "; expected the scores' shape [B, n_q, n_k]");
  if (!outside) return weights;
  if (!finite(weights.value()) && finite(scores.value()) && all_finite(params))
    throw PluginFault(who + " returned NaN or infinite weights from finite scores");
  if (const std::string entry = nonzero_masked_entry(weights.value(), lens); !entry.empty())
    throw PluginFault(who + " gave a masked key a weight, " + entry +
                      "; masked keys must get exactly 0 (mask_keys in autodiff/ops.hpp does it)");
  if (const std::string entry = unnormalized_entry(weights.value(), lens, rows_sum_to_one); !entry.empty())
    throw PluginFault(who + " returned weights that are not what it declares: " + entry +
                      " (weights are never negative; rows sum to 1 unless traits().rows_sum_to_one is false)");
  return weights;
}

CheckedNormalizer make_normalizer(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope) {
  CheckedNormalizer n{make_handle(kinds.normalizers, choice, scope, NormalizerArgs{scope, choice.options}), false};
  const NormalizerTraits traits = guarded(n.who, "traits", [&] { return n.plugin->traits(); });
  n.masked_softmax = traits.masked_softmax;
  n.rows_sum_to_one = traits.rows_sum_to_one;
  if (!n.masked_softmax) return n;
  IntTensor lens = IntTensor::from_shape({1, 2});
  lens(0, 0) = 3, lens(0, 1) = 5;
  const Var scores = probe({1, 2, 5}, 2.1f);
  if (const std::string differs = probe_difference(n(scores, lens), masked_softmax(scores, lens)); !differs.empty())
    throw SpecError(choice.where, n.who + " declares traits().masked_softmax, but " + differs +
                                      " (set it only when normalize() is exactly masked_softmax(scores, lens))");
  return n;
}

FormedQkv CheckedMode::form(const AttentionSources& sources) const {
  const FormedQkv f = guarded(who, "form", [&] { return plugin->form(sources); });
  const std::size_t batch = sources.query.dim(0);
  require_formed(who, "queries", f.queries, batch, 0, query_dim_, "query_dim()");
  require_formed(who, "keys", f.keys, batch, 0, key_dim_, "key_dim()");
  require_formed(who, "values", f.values, batch, f.keys.dim(1), value_dim_, "value_dim()");
  const Var& keyed = traits_.self_attention ? sources.query : sources.key;
  if (keyed.defined() && f.keys.dim(1) != keyed.dim(1))
    throw PluginFault(who + " formed " + std::to_string(f.keys.dim(1)) + " keys from " + std::to_string(keyed.dim(1)) +
                      (traits_.self_attention ? " query positions, but declares self-attention (keys from the queries)"
                                              : " key positions; a mode whose keys come from the queries declares traits().self_attention"));
  return f;
}

ValidLens CheckedMode::valid_lens(const ValidLens& lens, std::size_t batch, std::size_t n_q, std::size_t n_k) const {
  const ValidLens out = guarded(who, "valid_lens", [&] { return plugin->valid_lens(lens, batch, n_q, n_k); });
  const bool ok = !out || (out->dimension() == 1 && out->shape()[0] == batch) ||
                  (out->dimension() == 2 && out->shape()[0] == batch && out->shape()[1] == n_q) ||
                  (out->dimension() == 3 && out->shape()[0] == batch && out->shape()[1] == n_q && out->shape()[2] == 2);
  if (!ok)
    throw PluginFault(who + " returned valid lengths of shape " + shape_str(Shape(out->shape().begin(), out->shape().end())) +
                      "; expected none, [B] = [" + std::to_string(batch) + "], [B, n_q] = [" + std::to_string(batch) +
                      ", " + std::to_string(n_q) + "] or key ranges [B, n_q, 2]");
  if (const std::string widened = widened_query(lens, out, batch, n_q, n_k); !widened.empty())
    throw PluginFault(who + " widened the mask it was given in valid_lens(): " + widened +
                      " (padding would be attended to); a mode may only tighten the caller's lengths, so start from `lens`");
  return out;
}

CheckedMode make_mode(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                      std::size_t query_dim, std::size_t key_dim, std::size_t value_dim) {
  CheckedMode m{make_handle(kinds.modes, choice, scope, ModeArgs{scope, choice.options, query_dim, key_dim, value_dim})};
  try {  // the sizes are part of construction: a problem with them is reported at the mode's name
    m.query_dim_ = guarded(m.who, "query_dim", [&] { return m.plugin->query_dim(); });
    m.key_dim_ = guarded(m.who, "key_dim", [&] { return m.plugin->key_dim(); });
    m.value_dim_ = guarded(m.who, "value_dim", [&] { return m.plugin->value_dim(); });
    m.traits_ = guarded(m.who, "traits", [&] { return m.plugin->traits(); });
    if (m.query_dim_ == 0 || m.key_dim_ == 0 || m.value_dim_ == 0)
      throw PluginFault(m.who + " declares a size of 0 (query_dim() " + std::to_string(m.query_dim_) + ", key_dim() " +
                        std::to_string(m.key_dim_) + ", value_dim() " + std::to_string(m.value_dim_) + ")");
  } catch (const PluginFault& e) {
    throw SpecError(choice.where, e.what());
  }
  return m;
}

Var CheckedCell::project_inputs(const Var& x) const {
  const Var p = guarded(who, "project_inputs", [&] { return plugin->project_inputs(x); });
  if (!p.defined() || p.ndim() != 3 || p.dim(0) != x.dim(0) || p.dim(1) != x.dim(1) || p.dim(2) == 0)
    throw PluginFault(who + " returned projected inputs of shape " + shape_text(p) + " for inputs " +
                      shape_str(x.shape()) + "; expected [B, T, width] = [" + std::to_string(x.dim(0)) + ", " +
                      std::to_string(x.dim(1)) + ", width]");
  return p;
}

CellState CheckedCell::step(const Var& projected_t, const CellState& state) const {
  CellState next = guarded(who, "step", [&] { return plugin->step(projected_t, state); });
  require_same_state(who, next, state, "returned from step() a state");
  return next;
}

CellState CheckedCell::initial_state(std::size_t batch) const {
  CellState s = guarded(who, "initial_state", [&] { return plugin->initial_state(batch); });
  bool ok = !s.empty();
  for (const Var& part : s) ok = ok && part.defined() && part.ndim() >= 1 && part.dim(0) == batch;
  if (!ok)
    throw PluginFault(who + " returned from initial_state(" + std::to_string(batch) +
                      ") no state or a part whose first axis is not the batch (" + std::to_string(batch) + ")");
  return s;
}

Var CheckedCell::output(const CellState& state) const {
  const Var h = guarded(who, "output", [&] { return plugin->output(state); });
  const std::size_t batch = state.at(0).dim(0);
  if (!h.defined() || h.shape() != Shape{batch, hidden_size})
    throw PluginFault(who + " returned an output of shape " + shape_text(h) + "; expected [B, hidden_size] = [" +
                      std::to_string(batch) + ", " + std::to_string(hidden_size) + "]");
  return h;
}

CheckedCell make_cell(const PluginKinds& kinds, const PluginChoice& choice, const ParamScope& scope,
                      std::size_t input_size, std::size_t hidden_size) {
  CheckedCell c{make_handle(kinds.cells, choice, scope, CellArgs{scope, choice.options, input_size, hidden_size})};
  c.hidden_size = hidden_size;
  return c;
}

}  // namespace attn
