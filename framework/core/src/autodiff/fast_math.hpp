// Vectorised math shared by the fused primitives (private to framework/src/autodiff).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

namespace attn {

using Batch = xsimd::batch<float>;
constexpr std::size_t lanes = Batch::size;

// max(x, lo) and min(x, hi) that keep a NaN: vmaxps and vminps give their second operand when
// one is NaN, std::max and std::min their first, so the operands go in opposite orders.
template <class T>
T max_keeping_nan(T x, float lo) {
  if constexpr (std::is_same_v<T, float>) return std::max(x, lo); else return xsimd::max(T(lo), x);
}

template <class T>
T min_keeping_nan(T x, float hi) {
  if constexpr (std::is_same_v<T, float>) return std::min(x, hi); else return xsimd::min(T(hi), x);
}

// tanh as a [13/6] rational function on [-7.9053, 7.9053] (Eigen's float tanh; max error a few
// ulp), ~12 multiply-adds and one division per vector: several times cheaper than exp-based tanh.
template <class T>
T fast_tanh(T x) {
  x = min_keeping_nan(max_keeping_nan(x, -7.90531110763549805f), 7.90531110763549805f);  // a NaN stays NaN
  const T x2 = x * x;
  T p = xsimd::fma(x2, T(-2.76076847742355e-16f), T(2.00018790482477e-13f));
  p = xsimd::fma(x2, p, T(-8.60467152213735e-11f));
  p = xsimd::fma(x2, p, T(5.12229709037114e-08f));
  p = xsimd::fma(x2, p, T(1.48572235717979e-05f));
  p = xsimd::fma(x2, p, T(6.37261928875436e-04f));
  p = xsimd::fma(x2, p, T(4.89352455891786e-03f));
  p = x * p;
  T q = xsimd::fma(x2, T(1.19825839466702e-06f), T(1.18534705686654e-04f));
  q = xsimd::fma(x2, q, T(2.26843463243900e-03f));
  q = xsimd::fma(x2, q, T(4.89352518554385e-03f));
  if constexpr (std::is_same_v<T, float>) {
    return p / q;
  } else {  // 1/q as a hardware estimate refined by one Newton step: a vector division would
            // bound the whole kernel by the divider's throughput
    T r = xsimd::reciprocal(q);
    r = r * xsimd::fnma(q, r, T(2.0f));
    return p * r;
  }
}

// sigmoid(x) = (1 + tanh(x / 2)) / 2, exactly; through fast_tanh.
template <class T>
T fast_sigmoid(T x) {
  return T(0.5f) + T(0.5f) * fast_tanh(T(0.5f) * x);
}

// Loads and stores of a float or a vector of them, so one kernel body serves both.
template <class T>
T load_as(const float* p) {
  if constexpr (std::is_same_v<T, float>) return *p; else return T::load_unaligned(p);
}

template <class T>
void store_to(float* p, T v) {
  if constexpr (std::is_same_v<T, float>) *p = v; else v.store_unaligned(p);
}

// f(T{}, j) for the elements j of a row of `width`: vectors of `lanes` elements, then single
// floats for the tail (f is a generic lambda; T is Batch or float).
template <class F>
void for_lanes(std::size_t width, F&& f) {
  std::size_t j = 0;
  for (; j + lanes <= width; j += lanes) f(Batch{}, j);
  for (; j < width; ++j) f(0.0f, j);
}

// y = max(x, 0) over a row of n, a NaN kept (relu, linear_relu). y may be x (in place).
inline void relu_row(const float* x, float* y, std::size_t n) {
  for_lanes(n, [&](auto zero, std::size_t j) { store_to(y + j, max_keeping_nan(load_as<decltype(zero)>(x + j), 0.0f)); });
}

// dx = dy * [y > 0] over a row of n (beta 0: written), or dx += that (beta 1); y is relu's
// output ([y > 0] = [x > 0]). dx may be dy (in place, beta 0).
inline void relu_row_backward(const float* y, const float* dy, float* dx, std::size_t n, float beta) {
  for_lanes(n, [&](auto zero, std::size_t j) {
    using T = decltype(zero);
    const T yj = load_as<T>(y + j), d = load_as<T>(dy + j);
    T g;
    if constexpr (std::is_same_v<T, float>) g = yj > 0.0f ? d : 0.0f; else g = xsimd::select(yj > T(0.0f), d, T(0.0f));
    store_to(dx + j, beta == 0.0f ? g : g + load_as<T>(dx + j));
  });
}

// The sum over j in [0, n) of f(T{}, j), f giving a float or a vector of lanes (summed
// lane-wise, then across lanes): a reduction the compiler would not vectorise on its own.
template <class F>
float lane_sum(std::size_t n, F&& f) {
  Batch acc(0.0f);
  std::size_t j = 0;
  for (; j + lanes <= n; j += lanes) acc += f(Batch{}, j);
  float total = xsimd::hadd(acc);
  for (; j < n; ++j) total += f(0.0f, j);
  return total;
}

// The first `count` (<= lanes) floats at p as a vector, the other lanes `fill`; and their store.
// With AVX-512 these are masked loads and stores (they touch no memory past count). Elsewhere
// the tail goes through a stack buffer, whose scalar stores then vector load cost a
// store-forwarding stall: with AVX-512 on a row of 10 scores that stall was 20% of softmax.
inline Batch load_tail(const float* p, std::size_t count, float fill) {
#if defined(__AVX512F__)
  if constexpr (lanes == 16)
    return Batch(_mm512_mask_loadu_ps(_mm512_set1_ps(fill), static_cast<__mmask16>((1u << count) - 1u), p));
#endif
  alignas(64) float tail[lanes];
  std::fill_n(tail, lanes, fill);
  std::copy_n(p, count, tail);
  return Batch::load_aligned(tail);
}

inline void store_tail(float* p, std::size_t count, const Batch& v) {
#if defined(__AVX512F__)
  if constexpr (lanes == 16) return _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << count) - 1u), v);
#endif
  alignas(64) float tail[lanes];
  v.store_aligned(tail);
  std::copy_n(tail, count, p);
}

// to[0, n) = from[0, n), or += that (add): vectors and a masked tail, inline. For the short rows
// of heads (8 floats in W5) and biases, where a call to memmove per row cost more than the copy.
inline void copy_row(const float* from, float* to, std::size_t n, bool add = false) {
  std::size_t k = 0;
  for (; k + lanes <= n; k += lanes) {
    const Batch x = Batch::load_unaligned(from + k);
    (add ? x + Batch::load_unaligned(to + k) : x).store_unaligned(to + k);
  }
  if (k == n) return;
  const Batch x = load_tail(from + k, n - k, 0.0f);
  store_tail(to + k, n - k, add ? x + load_tail(to + k, n - k, 0.0f) : x);
}

// to[0, n) = from[0, n) with streaming (non-temporal) stores where `to` is vector aligned: the
// lines go to memory without first being read into the cache, for a large array written once
// and read much later (the fused attention's weights). Ends with a store fence, so what
// follows sees the copy as ordinary stores would be seen.
inline void stream_row(const float* from, float* to, std::size_t n) {
  std::size_t k = 0;
  for (; k < n && reinterpret_cast<std::uintptr_t>(to + k) % (lanes * sizeof(float)); ++k) to[k] = from[k];
  for (; k + lanes <= n; k += lanes) {
    const Batch x = Batch::load_unaligned(from + k);
#if defined(__AVX512F__)
    static_assert(lanes == 16, "XSIMD targets AVX-512: 16 lanes");
    _mm512_stream_ps(to + k, x);
#elif defined(__AVX__)
    static_assert(lanes == 8, "XSIMD targets AVX: 8 lanes");
    _mm256_stream_ps(to + k, x);
#else
    x.store_aligned(to + k);  // no streaming store for this target: an ordinary one
#endif
  }
  for (; k < n; ++k) to[k] = from[k];
#if defined(__AVX__)
  _mm_sfence();
#endif
}

// out[j * out_stride + i] = x[i * cols + j]: x [rows, cols] transposed into the rows of out
// (out_stride >= rows; the fused attention's K^T and V^T, and the short path's columns).
inline void transpose(const float* x, std::size_t rows, std::size_t cols, float* out, std::size_t out_stride) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) out[j * out_stride + i] = x[i * cols + j];
}

// Lane numbers, loaded from constants: a vector built lane by lane on the stack would be a
// vector load of floats just stored one by one, which waits for the stores.
static_assert(lanes <= 16, "lane_numbers holds 16 lanes");
alignas(64) inline constexpr float lane_numbers[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
alignas(64) inline constexpr std::uint32_t lane_numbers_u32[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// The vector 0, 1, ..., lanes - 1 (lane j holds j).
inline Batch lane_indices() { return Batch::load_aligned(lane_numbers); }

// The largest of a vector's lanes.
inline float lane_max(const Batch& v) {
#if defined(__AVX512F__)
  if constexpr (lanes == 16) return _mm512_reduce_max_ps(v);
#endif
  alignas(64) float lane[lanes];
  v.store_aligned(lane);
  return *std::max_element(lane, lane + lanes);
}

// y = exp(x - shift) over a row of n; returns the sum of y. Vectors of lanes throughout: the
// tail is one more vector padded with -inf (exp gives 0 there), so a row of 10 scores (shorter
// than one AVX-512 vector) does not fall back to scalar exp.
inline float exp_row(const float* x, float* y, std::size_t n, float shift) {
  Batch acc(0.0f);
  std::size_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const Batch e = xsimd::exp(Batch::load_unaligned(x + j) - Batch(shift));
    e.store_unaligned(y + j);
    acc += e;
  }
  if (j < n) {
    const Batch e = xsimd::exp(load_tail(x + j, n - j, -std::numeric_limits<float>::infinity()) - Batch(shift));
    store_tail(y + j, n - j, e);
    acc += e;
  }
  return xsimd::hadd(acc);
}

}  // namespace attn
