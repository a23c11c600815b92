#include "attnlab/rng.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace attn {

float Rng::uniform() { return static_cast<float>(engine_() >> 40) * 0x1.0p-24f; }

float Rng::uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }

float Rng::normal(float mean, float std) {
  // Box-Muller on (0, 1] x [0, 1): one draw per call keeps the stream simple to reason about.
  const double u1 = (static_cast<double>(engine_() >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  return mean + std * static_cast<float>(z);
}

std::size_t Rng::below(std::size_t n) {
  return n == 0 ? 0 : static_cast<std::size_t>(engine_() % n);
}

Rng Rng::derive(std::string_view name) const {
  std::uint64_t h = 1469598103934665603ull ^ seed_;  // FNV-1a over the name, mixed with the seed
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  h ^= h >> 31;  // splitmix64 finaliser
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  return Rng(h);
}

std::string Rng::state() const {
  std::ostringstream out;
  out << seed_ << ' ' << engine_;
  return out.str();
}

void Rng::set_state(const std::string& state) {
  std::istringstream in(state);
  in >> seed_ >> engine_;
  if (!in) throw std::invalid_argument("not a random-stream state: '" + state.substr(0, 40) + "...'");
}

}  // namespace attn
