// Parameter initialisers, all drawing from the run's Rng.
// For a weight of shape [fan_in, fan_out, ...] (attnlab's y = x W layout):
//   xavier_uniform: U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out))
//   normal:         N(0, std^2);  uniform: U(lo, hi);  constant: v;  zeros
#pragma once

#include <string>

#include "attnlab/rng.hpp"
#include "attnlab/tensor.hpp"

namespace attn {

struct Init {
  enum class Kind { zeros, constant, normal, uniform, xavier_uniform };
  Kind kind = Kind::zeros;
  float a = 0.0f;  // std (normal), lower bound (uniform), value (constant), gain (xavier)
  float b = 0.0f;  // upper bound (uniform)

  static Init zeros() { return {Kind::zeros, 0.0f, 0.0f}; }
  static Init constant(float v) { return {Kind::constant, v, 0.0f}; }
  static Init normal(float std) { return {Kind::normal, std, 0.0f}; }
  static Init uniform(float lo, float hi) { return {Kind::uniform, lo, hi}; }
  static Init uniform(float bound) { return uniform(-bound, bound); }
  static Init xavier_uniform(float gain = 1.0f) { return {Kind::xavier_uniform, gain, 0.0f}; }
};

// A tensor of `shape` filled by `init`.
Tensor initialised(const Shape& shape, const Init& init, Rng& rng);

}  // namespace attn
