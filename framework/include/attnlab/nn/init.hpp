// Parameter initialisers, all drawing from the run's Rng.
// For a weight of shape [fan_in, fan_out, ...] (attnlab's y = x W layout):
//   xavier_uniform: U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out))
//   xavier_normal:  N(0, s^2), s = gain * sqrt(2 / (fan_in + fan_out))
//   normal:         N(0, scale^2);  uniform: U(-scale, scale);  constant: scale;  zeros
#pragma once

#include <string>

#include "attnlab/rng.hpp"
#include "attnlab/tensor.hpp"

namespace attn {

struct Init {
  enum class Kind { zeros, constant, normal, uniform, xavier_uniform, xavier_normal };
  Kind kind = Kind::zeros;
  float scale = 1.0f;  // std for normal, bound for uniform, value for constant, gain for xavier

  static Init zeros() { return {Kind::zeros, 0.0f}; }
  static Init constant(float v) { return {Kind::constant, v}; }
  static Init normal(float std) { return {Kind::normal, std}; }
  static Init uniform(float bound) { return {Kind::uniform, bound}; }
  static Init xavier_uniform(float gain = 1.0f) { return {Kind::xavier_uniform, gain}; }
  static Init xavier_normal(float gain = 1.0f) { return {Kind::xavier_normal, gain}; }
};

// A tensor of `shape` filled by `init`.
Tensor initialised(const Shape& shape, const Init& init, Rng& rng);

}  // namespace attn
