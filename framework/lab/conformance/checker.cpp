#include "lab/conformance/checker.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attn {

std::string lens_text(const IntTensor& lens) {
  std::string out = "[";
  for (std::size_t i = 0; i < lens.size(); ++i) {
    if (lens.dimension() == 2 && i % lens.shape()[1] == 0) out += i ? "], [" : "[";
    else if (i) out += ", ";
    out += std::to_string(lens.data()[i]);
  }
  return out + (lens.dimension() == 2 ? "]]" : "]");
}

Tensor random_normal(const Shape& shape, Rng& rng) {
  Tensor t = Tensor::from_shape(shape);
  for (float& v : t) v = rng.normal();
  return t;
}

NamedVars leaves_of(const ParamStore& store, const NamedVars& inputs) {
  NamedVars out = store.items();
  out.insert(out.end(), inputs.begin(), inputs.end());
  return out;
}

Checker::Checker(std::string plugin, std::string options) {
  run_.plugin = std::move(plugin);
  run_.options = std::move(options);
}

bool Checker::expect(bool ok, const std::string& check, const std::string& input, const std::string& expected,
                     const std::string& got) {
  const bool failed_before = std::find(failed_.begin(), failed_.end(), check) != failed_.end();
  if (!ok && !failed_before) {
    run_.failures.push_back({check, input, expected, got});
    failed_.push_back(check);
  }
  if (std::find(run_.passed.begin(), run_.passed.end(), check) == run_.passed.end()) run_.passed.push_back(check);
  return ok;
}

void Checker::guarded(const std::string& check, const std::string& input, const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    expect(false, check, input, "no exception", std::string("threw: ") + e.what());
  }
}

void Checker::gradients(const std::string& check, const std::string& input, const std::function<Var()>& f,
                        const NamedVars& leaves, float step) {
  guarded(check, input, [&] {
    Rng rng(11);
    GradCheckOptions options;
    options.max_entries_per_leaf = 24;
    if (step > 0.0f) options.eps = step;
    const GradCheckResult result = gradcheck(f, leaves, rng, options);
    expect(result.checked > 0 && result.ok, check, input + ", finite-difference step " + option_text(options.eps),
           "the backward pass's gradient equal to the finite difference (|error| <= 1e-3 + 1e-2 |value|)",
           result.checked == 0 ? "no entry to compare" : result.report);
  });
}

void Checker::masked_weights(const std::string& input, const Tensor& weights, const IntTensor& lens, bool sum_to_one) {
  const std::size_t batch = weights.shape()[0], nq = weights.shape()[1], nk = weights.shape()[2];
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < nq; ++i) {
      const int len = lens.dimension() == 1 ? lens(b) : lens(b, i);
      const std::string at = input + ", item " + std::to_string(b) + ", query " + std::to_string(i);
      double total = 0.0;
      for (std::size_t j = 0; j < nk; ++j) {
        const float w = weights(b, i, j);
        const std::string key = at + ", key " + std::to_string(j);
        expect(std::isfinite(w), "every weight finite", key, "a finite weight", option_text(w));
        expect(!(w < 0.0f), "no negative weight", key, "a weight >= 0", option_text(w));
        if (static_cast<int>(j) >= len)
          expect(w == 0.0f, "masked keys get weight exactly 0", key + " (past its valid length " + std::to_string(len) + ")", "0",
                 option_text(w));
        total += w;
      }
      if (sum_to_one || len == 0) {
        const double want = std::min(len, 1);
        expect(std::abs(total - want) <= 1e-5, len == 0 ? "a row with no valid key is all 0" : "each row's weights sum to 1",
               at + " (valid length " + std::to_string(len) + ")", option_text(want), option_text(total));
      }
    }
}

bool Checker::close(const std::string& check, const std::string& input, const Tensor& got, const Tensor& want, double rtol,
                    double atol, const std::string& expected) {
  const Shape got_shape(got.shape().begin(), got.shape().end()), want_shape(want.shape().begin(), want.shape().end());
  if (got_shape != want_shape)
    return expect(false, check, input, expected + " (shape " + shape_str(want_shape) + ")", "shape " + shape_str(got_shape));
  std::size_t worst = 0;
  double worst_excess = -1.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got.data()[i], w = want.data()[i];
    const double excess = std::isfinite(g) ? std::abs(g - w) - (atol + rtol * std::abs(w)) : 1e30;
    if (excess > worst_excess) worst_excess = excess, worst = i;
  }
  return expect(worst_excess <= 0.0, check, input, expected + " (entry " + std::to_string(worst) + ": " + option_text(want.data()[worst]) + ")",
                option_text(got.data()[worst]));
}

ConformanceRun Checker::result() const {
  ConformanceRun out = run_;
  out.passed.erase(std::remove_if(out.passed.begin(), out.passed.end(),
                                  [&](const std::string& c) { return std::find(failed_.begin(), failed_.end(), c) != failed_.end(); }),
                   out.passed.end());
  return out;
}

}  // namespace attn
