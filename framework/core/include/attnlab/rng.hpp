// The random stream a run owns. Every random draw in attnlab (initialisers, dropout masks,
// data generation, shuffling) goes through an Rng passed in by the caller, so a run is
// reproducible from its seed whatever else runs beside it. The float conversions are our own
// (not <random>'s distributions), so streams are the same with every standard library.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

namespace attn {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed), seed_(seed) {}

  std::uint64_t next_u64() { return engine_(); }
  float uniform();                  // [0, 1), 24 random bits
  float uniform(float lo, float hi);  // [lo, hi)
  float normal(float mean = 0.0f, float std = 1.0f);  // Box-Muller
  std::size_t below(std::size_t n);  // uniform integer in [0, n)

  // An independent stream derived from this Rng's seed and a name (e.g. a run id or
  // "dropout"), without consuming from this stream.
  Rng derive(std::string_view name) const;

  // The complete state as text, and its restoration (checkpoints resume the exact stream).
  std::string state() const;
  void set_state(const std::string& state);

 private:
  std::mt19937_64 engine_;
  std::uint64_t seed_;
};

}  // namespace attn
