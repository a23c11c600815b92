// The conformance suite's bookkeeping: each check of one plugin with one option set passes, or
// fails with the input it was given and what a correct plugin gives there (attnlab check).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attnlab/attnlab.hpp"
#include "attnlab/options.hpp"

namespace attn {

struct ConformanceFailure {
  std::string check;     // "masked keys get weight 0"
  std::string input;     // "item 1, query 2, key 4, valid lengths [6, 2, 0]"
  std::string expected;  // what a correct plugin gives
  std::string got;       // what this one gave
};

// One plugin checked with one option set.
struct ConformanceRun {
  std::string plugin;   // "scoring function 'cosine' (plugin ./cosine.so)"
  std::string options;  // "defaults", or "window=2, causal=true"
  std::vector<std::string> passed;  // the checks that held
  std::vector<ConformanceFailure> failures;
  std::vector<std::string> notes;  // what was left out, and why
};

class Checker {
 public:
  Checker(std::string plugin, std::string options);
  // Records `check` as held, or as failed on `input`. Returns `ok`. A check recorded several
  // times (one per input) holds when every input held; only its first failure is kept.
  bool expect(bool ok, const std::string& check, const std::string& input, const std::string& expected,
              const std::string& got);
  // Runs `body` on `input`; an exception thrown from it fails `check` with its message.
  void guarded(const std::string& check, const std::string& input, const std::function<void()>& body);
  // Finite-difference gradients of f with respect to every leaf (the plugin's parameters and
  // the named inputs); `step` 0 uses the suite's.
  void gradients(const std::string& check, const std::string& input, const std::function<Var()>& f,
                 const NamedVars& leaves, float step);
  // Every weight finite and non-negative, exactly 0 past its row's valid length, rows with a
  // valid key summing to 1 (when `sum_to_one`), rows without one all 0. lens: [B] or [B, n_q].
  void masked_weights(const std::string& input, const Tensor& weights, const IntTensor& lens, bool sum_to_one);
  // Whether got and want agree entrywise within atol + rtol |want|; a failure gives the worst entry.
  bool close(const std::string& check, const std::string& input, const Tensor& got, const Tensor& want, double rtol,
             double atol, const std::string& expected);
  void note(const std::string& text) { run_.notes.push_back(text); }
  const std::string& plugin() const { return run_.plugin; }
  ConformanceRun result() const;

 private:
  ConformanceRun run_;
  std::vector<std::string> failed_;  // checks with a failure kept
};

// Text of valid lengths, for the inputs of failures (shapes: shape_str; numbers: option_text).
std::string lens_text(const IntTensor& lens);
// Standard normal entries from rng: the suite's inputs.
Tensor random_normal(const Shape& shape, Rng& rng);
// The plugin's parameters, then the named inputs: every leaf a gradient check covers.
NamedVars leaves_of(const ParamStore& store, const NamedVars& inputs);

}  // namespace attn
