// Softmax over the last axis, optionally masked by valid lengths, log-softmax, sparsemax and
// the key mask: the normalizers' primitives (plugins/softmax.cpp, sparsemax.cpp, ...).
// Rows are processed with raw loops: these sit on the hot path of every attention layer.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <xsimd/xsimd.hpp>

#include "attnlab/autodiff/ops.hpp"
#include "fast_math.hpp"
#include "softmax_rows.hpp"

namespace attn {
namespace {

float row_max(const float* x, std::size_t n) {
  float mx = -std::numeric_limits<float>::infinity();
  std::size_t j = 0;
  if (n >= lanes) {
    Batch m = Batch::load_unaligned(x);
    for (j = lanes; j + lanes <= n; j += lanes) m = xsimd::max(m, Batch::load_unaligned(x + j));
    alignas(64) float lane[lanes];
    m.store_aligned(lane);
    mx = *std::max_element(lane, lane + lanes);
  }
  for (; j < n; ++j) mx = std::max(mx, x[j]);
  return mx;
}

float dot_row(const float* a, const float* b, std::size_t n) {
  Batch acc(0.0f);
  std::size_t j = 0;
  for (; j + lanes <= n; j += lanes) acc = xsimd::fma(Batch::load_unaligned(a + j), Batch::load_unaligned(b + j), acc);
  float total = xsimd::hadd(acc);
  for (; j < n; ++j) total += a[j] * b[j];
  return total;
}

// Whether `lens` [..., 2] holds key ranges for scores of shape x [..., n]: x's leading axes, then 2.
bool holds_ranges(const Shape& ls, const Shape& x) {
  return ls.size() == x.size() && ls.back() == 2 && std::equal(ls.begin(), ls.end() - 1, x.begin());
}

}  // namespace

std::vector<KeyRange> row_ranges(const Shape& x, const IntTensor* mask, const char* op) {
  const std::size_t n = x.back(), rows = num_elements(Shape(x.begin(), x.end() - 1));  // also when n = 0
  if (!mask) return std::vector<KeyRange>(rows, KeyRange{0, n});
  const IntTensor& lens = *mask;
  const Shape ls(lens.shape().begin(), lens.shape().end());
  const auto clamped = [n](int v) { return static_cast<std::size_t>(std::clamp<int>(v, 0, static_cast<int>(n))); };
  std::vector<KeyRange> out(rows);
  if (holds_ranges(ls, x)) {
    for (std::size_t r = 0; r < rows; ++r) out[r] = {clamped(lens.data()[2 * r]), clamped(lens.data()[2 * r + 1])};
    return out;
  }
  if (ls.empty() || ls.size() >= x.size() || !std::equal(ls.begin(), ls.end(), x.begin()))
    throw std::invalid_argument(std::string(op) + ": valid lengths of shape " + shape_str(ls) +
                                " do not match scores " + shape_str(x) +
                                " (expected [B] or [B, n_q] leading the scores' shape, or key ranges [B, n_q, 2])");
  const std::size_t per = rows / lens.size();  // rows sharing one valid length
  for (std::size_t r = 0; r < rows; ++r) out[r] = {0, clamped(lens.data()[r / per])};
  return out;
}

void softmax_row(const float* x, float* y, std::size_t n, KeyRange valid) {
  if (n <= lanes) return store_tail(y, n, softmax_lanes(load_tail(x, n, 0.0f), valid));
  const std::size_t begin = valid.begin, len = valid.size();
  const float mx = len ? row_max(x + begin, len) : 0.0f;  // read before y (which may be x) is written
  std::fill(y, y + begin, 0.0f);
  std::fill(y + begin + len, y + n, 0.0f);
  if (len == 0) return;
  const float inv = 1.0f / exp_row(x + begin, y + begin, len, mx);
  for (std::size_t j = begin; j < begin + len; ++j) y[j] *= inv;
}

void softmax_row_backward(const float* y, const float* dy, float* dx, std::size_t n, float beta) {
  const float dot = dot_row(dy, y, n);
  if (beta == 0.0f)
    for (std::size_t j = 0; j < n; ++j) dx[j] = y[j] * (dy[j] - dot);
  else
    for (std::size_t j = 0; j < n; ++j) dx[j] += y[j] * (dy[j] - dot);
}

namespace {

// The masked softmax of every row (softmax_rows.hpp has the math). Each element of y and dx
// is written once: no zero fill first (at W3's length 512 these are
// [128, 512, 512], 134 MB each).
Var softmax_rows(const Var& x, const IntTensor* lens) {
  if (x.ndim() < 1) throw std::invalid_argument("softmax: needs at least one axis");
  const Shape shape = x.shape();
  const std::size_t n = shape.back();
  const auto valid = row_ranges(shape, lens);
  Tensor y = Tensor::from_shape(shape);
  for (std::size_t r = 0; r < valid.size(); ++r) softmax_row(x.value().data() + r * n, y.data() + r * n, n, valid[r]);
  return graph_node(std::move(y), {x}, [n](Node& nd) {
    const auto [dx, beta] = nd.parents[0]->grad_target();
    for (std::size_t r = 0; r < nd.value.size() / std::max<std::size_t>(n, 1); ++r)
      softmax_row_backward(nd.value.data() + r * n, nd.grad.data() + r * n, dx + r * n, n, beta);
  });
}

// tau of one row of sparsemax: with z sorted decreasingly, k = max{j : 1 + j z_j > sum_{i<=j} z_i}
// (1-based) and tau = (sum_{i<=k} z_i - 1) / k.
float sparsemax_threshold(const float* x, std::size_t len, std::vector<float>& sorted) {
  sorted.assign(x, x + len);
  std::sort(sorted.begin(), sorted.end(), std::greater<float>());
  double cumulative = 0.0, tau = 0.0;
  for (std::size_t j = 0; j < len; ++j) {
    cumulative += sorted[j];
    if (1.0 + static_cast<double>(j + 1) * sorted[j] > cumulative) tau = (cumulative - 1.0) / static_cast<double>(j + 1);
  }
  return static_cast<float>(tau);
}

}  // namespace

const IntTensor* lens_of(const ValidLens& lens) { return lens ? &*lens : nullptr; }

Var softmax(const Var& x) { return softmax_rows(x, nullptr); }

Var sparsemax(const Var& x, const ValidLens& lens) {
  if (x.ndim() < 1) throw std::invalid_argument("sparsemax: needs at least one axis");
  const std::size_t n = x.shape().back();
  const auto valid = row_ranges(x.shape(), lens_of(lens), "sparsemax");
  Tensor y = xt::zeros<float>(x.shape());
  std::vector<float> sorted;
  for (std::size_t r = 0; r < valid.size(); ++r) {
    const float* xr = x.value().data() + r * n + valid[r].begin;
    float* yr = y.data() + r * n + valid[r].begin;
    const float tau = sparsemax_threshold(xr, valid[r].size(), sorted);
    for (std::size_t j = 0; j < valid[r].size(); ++j) yr[j] = std::max(0.0f, xr[j] - tau);
  }
  return graph_node(std::move(y), {x}, [n](Node& nd) {
    float* dx = nd.parents[0]->grad_buffer().data();
    const float* y = nd.value.data();
    const float* dy = nd.grad.data();
    for (std::size_t r = 0; r < nd.value.size() / std::max<std::size_t>(n, 1); ++r) {
      double total = 0.0;
      std::size_t support = 0;
      for (std::size_t j = r * n; j < (r + 1) * n; ++j)
        if (y[j] > 0.0f) total += dy[j], ++support;
      const float mean = support ? static_cast<float>(total / static_cast<double>(support)) : 0.0f;
      for (std::size_t j = r * n; j < (r + 1) * n; ++j)
        if (y[j] > 0.0f) dx[j] += dy[j] - mean;
    }
  });
}

// y = x on each row's valid keys, exactly 0 elsewhere (also where x is inf or NaN);  dx = dy there, 0 elsewhere
Var mask_keys(const Var& x, const ValidLens& lens) {
  if (!lens) return x;
  if (x.ndim() < 1) throw std::invalid_argument("mask_keys: needs at least one axis");
  const std::size_t n = x.shape().back();
  auto valid = row_ranges(x.shape(), &*lens, "mask_keys");
  Tensor y = xt::zeros<float>(x.shape());
  for (std::size_t r = 0; r < valid.size(); ++r)
    std::copy_n(x.value().data() + r * n + valid[r].begin, valid[r].size(), y.data() + r * n + valid[r].begin);
  return graph_node(std::move(y), {x}, [valid = std::move(valid), n](Node& nd) {
    float* dx = nd.parents[0]->grad_buffer().data();
    const float* dy = nd.grad.data();
    for (std::size_t r = 0; r < valid.size(); ++r)
      for (std::size_t j = r * n + valid[r].begin; j < r * n + valid[r].end; ++j) dx[j] += dy[j];
  });
}

Var masked_softmax(const Var& x, const IntTensor& lens) { return softmax_rows(x, &lens); }

Var masked_softmax(const Var& x, const ValidLens& lens) { return softmax_rows(x, lens_of(lens)); }

// y_j = x_j - max - log sum_i exp(x_i - max);  dx = dy - softmax(x) * sum(dy)
Var log_softmax(const Var& x) {
  if (x.ndim() < 1) throw std::invalid_argument("log_softmax: needs at least one axis");
  const std::size_t n = x.shape().back(), rows = x.value().size() / std::max<std::size_t>(n, 1);
  Tensor y = Tensor::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x.value().data() + r * n;
    float* yr = y.data() + r * n;
    const float mx = n ? row_max(xr, n) : 0.0f;
    const float lse = mx + std::log(exp_row(xr, yr, n, mx));  // yr is scratch here
    for (std::size_t j = 0; j < n; ++j) yr[j] = xr[j] - lse;
  }
  return graph_node(std::move(y), {x}, [n, rows](Node& nd) {
    float* dx = nd.parents[0]->grad_buffer().data();
    const float* y = nd.value.data();
    const float* dy = nd.grad.data();
    for (std::size_t r = 0; r < rows; ++r) {
      float total = 0.0f;
      for (std::size_t j = 0; j < n; ++j) total += dy[r * n + j];
      for (std::size_t j = 0; j < n; ++j) dx[r * n + j] += dy[r * n + j] - std::exp(y[r * n + j]) * total;
    }
  });
}

}  // namespace attn
