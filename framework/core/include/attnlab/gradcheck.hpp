// Finite-difference gradient check.
//
// f() builds a computation from `leaves` (inputs and/or parameters, all Vars that take a
// gradient) and returns its output y. With a fixed random projection R, L = sum(y * R):
//   analytic:  dL/dx from y.backward(R)
//   numeric:   (L(x + eps) - L(x - eps)) / (2 eps), one entry at a time, L summed in double
// and every entry must satisfy |analytic - numeric| <= atol + rtol * max(|analytic|, |numeric|).
// Where the central difference fails, the one-sided differences (L(x + eps) - L(x)) / eps and
// (L(x) - L(x - eps)) / eps, and all three again with eps / 10, are tried too: a kink (ReLU,
// LeakyReLU) inside [x - eps, x + eps] spoils the central difference, not the one on its
// kink-free side nor one that no longer reaches it. For a smooth L they all agree, so a wrong
// backward fails either way (tests/test_gradients.cpp shows it).
// The conformance suite and the op tests use it; plugin authors can too.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attnlab/autodiff/var.hpp"
#include "attnlab/rng.hpp"

namespace attn {

struct GradCheckOptions {
  float eps = 1e-2f;
  float atol = 1e-3f;
  float rtol = 1e-2f;
  std::size_t max_entries_per_leaf = 0;  // 0 checks every entry; else a random sample
};

struct GradCheckResult {
  bool ok = true;
  std::size_t checked = 0;  // entries compared
  float worst_error = 0.0f;  // largest |analytic - numeric| - (atol + rtol * scale), <= 0 when ok
  std::string report;        // the worst mismatch: "W_q [3, 4] entry (1, 2): analytic 0.5, numeric 0.1"
};

// Leaves with names (q, k, v, W_q, ...): the report names the leaf and the entry's index.
GradCheckResult gradcheck(const std::function<Var()>& f, const NamedVars& leaves, Rng& rng,
                          const GradCheckOptions& options = {});
// Unnamed leaves are reported as "leaf 0", "leaf 1", ...
GradCheckResult gradcheck(const std::function<Var()>& f, const std::vector<Var>& leaves, Rng& rng,
                          const GradCheckOptions& options = {});

}  // namespace attn
