// Shape primitives. Slices, concatenation and index selection view a tensor as
// [outer, n, inner] around the axis they act on, and move contiguous blocks of `inner` floats.
#include <algorithm>
#include <stdexcept>

#include <xtensor/xmanipulation.hpp>

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/parallel.hpp"
#include "fast_math.hpp"

namespace attn {
namespace {

struct AxisView {
  std::size_t outer = 1, n = 1, inner = 1;
};

AxisView around(const Shape& s, std::size_t axis) {
  AxisView v;
  for (std::size_t i = 0; i < axis; ++i) v.outer *= s[i];
  v.n = s[axis];
  for (std::size_t i = axis + 1; i < s.size(); ++i) v.inner *= s[i];
  return v;
}

void check_axis(const char* op, const Var& x, std::size_t axis) {
  if (axis >= x.ndim())
    throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) +
                                " out of range for shape " + shape_str(x.shape()));
}

}  // namespace

// y = x viewed with another shape;  dx += dy viewed with x's shape
Var reshape(const Var& x, const Shape& shape) {
  if (num_elements(shape) != x.value().size())
    throw std::invalid_argument("reshape: cannot view " + shape_str(x.shape()) + " as " +
                                shape_str(shape));
  Tensor y = x.value();
  y.reshape(shape);
  return graph_node(std::move(y), {x}, [](Node& n) {
    Tensor g = n.grad;
    g.reshape(n.parents[0]->shape());
    n.accumulate(0, g);
  }, reads_parents({}));
}

// y = x with axes reordered: y.shape[i] = x.shape[axes[i]];  dx += dy permuted back
Var permute(const Var& x, const std::vector<std::size_t>& axes) {
  if (axes.size() != x.ndim())
    throw std::invalid_argument("permute: " + std::to_string(axes.size()) + " axes for shape " +
                                shape_str(x.shape()));
  std::vector<std::size_t> inverse(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) inverse.at(axes[i]) = i;
  Tensor y = xt::transpose(x.value(), axes);
  return graph_node(std::move(y), {x}, [inverse](Node& n) {
    n.accumulate(0, Tensor(xt::transpose(n.grad, inverse)));
  }, reads_parents({}));
}

// y = x with two axes swapped;  dx += dy with them swapped back
Var transpose(const Var& x, std::size_t axis0, std::size_t axis1) {
  check_axis("transpose", x, std::max(axis0, axis1));
  std::vector<std::size_t> axes(x.ndim());
  for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = i;
  std::swap(axes[axis0], axes[axis1]);
  return permute(x, axes);
}

namespace {

// Moves blocks of p floats between the layouts [B, n, h, p] ("by position", rows of `stride`
// floats, h*p of them moved) and [B, h, n, p] ("by head"), copying into dst, or adding (every
// element of dst that belongs to the moved blocks is written). Position by position: each row
// of the by-position layout is read or written once, in one piece, and the h heads are h
// sequential streams (on W3 L512, 21% less time here than head by head, whose every head swept
// the whole of a sequence's rows at a stride). Positions go to the cores in chunks.
void move_heads(const float* src, float* dst, std::size_t b, std::size_t n, std::size_t h, std::size_t p,
                bool to_heads, bool add, std::size_t stride) {
  parallel_for(b * n, rows_per_chunk(h * p), [&](std::size_t first, std::size_t last) {
    for (std::size_t position = first, bi = first / n, ni = first % n; position < last; ++position, ni = ni + 1 == n ? 0 : ni + 1) {
      if (position > first && ni == 0) ++bi;
      for (std::size_t hi = 0; hi < h; ++hi) {
        const std::size_t by_head = ((bi * h + hi) * n + ni) * p, by_position = position * stride + hi * p;
        const float* from = src + (to_heads ? by_position : by_head);
        float* to = dst + (to_heads ? by_head : by_position);
        copy_row(from, to, p, add);
      }
    }
  });
}

}  // namespace

// y[b*h + j, i, :] = x[b, i, f + j*p : f + (j+1)*p];  dx[b, i, f + j*p : f + (j+1)*p] += dy[b*h + j, i, :]
// (f = first; the columns outside [f, f + h*p) get no gradient from here)
Var split_heads(const Var& x, std::size_t heads, std::size_t first, std::size_t width) {
  const std::size_t columns = x.ndim() == 3 ? x.dim(2) : 0;
  if (width == 0) width = columns - std::min(first, columns);
  if (x.ndim() != 3 || heads == 0 || width % heads != 0 || first + width > columns)
    throw std::invalid_argument("split_heads: expected [B, n, heads * p] with " + std::to_string(heads) +
                                " heads in columns [" + std::to_string(first) + ", " + std::to_string(first + width) +
                                "), got " + shape_str(x.shape()));
  const std::size_t b = x.dim(0), n = x.dim(1), p = width / heads;
  Tensor y = Tensor::from_shape({b * heads, n, p});
  move_heads(x.value().data() + first, y.data(), b, n, heads, p, true, false, columns);
  return graph_node(std::move(y), {x}, [b, n, heads, p, first, columns, width](Node& node) {
    // a part of x's columns: the rest must be zero, not left undefined, in a fresh buffer
    const auto [dx, beta] = width == columns ? node.parents[0]->grad_target()
                                             : std::pair<float*, float>{node.parents[0]->grad_buffer().data(), 1.0f};
    move_heads(node.grad.data(), dx + first, b, n, heads, p, false, beta != 0.0f, columns);
  }, reads_parents({}));
}

// y[b, i, j*p : (j+1)*p] = x[b*h + j, i, :];  dx[b*h + j, i, :] += dy[b, i, j*p : (j+1)*p]
Var merge_heads(const Var& x, std::size_t heads) {
  if (x.ndim() != 3 || heads == 0 || x.dim(0) % heads != 0)
    throw std::invalid_argument("merge_heads: expected [B * heads, n, p] with " + std::to_string(heads) +
                                " heads, got " + shape_str(x.shape()));
  const std::size_t b = x.dim(0) / heads, n = x.dim(1), p = x.dim(2);
  Tensor y = Tensor::from_shape({b, n, heads * p});
  move_heads(x.value().data(), y.data(), b, n, heads, p, false, false, heads * p);
  return graph_node(std::move(y), {x}, [b, n, heads, p](Node& node) {
    const auto [dx, beta] = node.parents[0]->grad_target();
    move_heads(node.grad.data(), dx, b, n, heads, p, true, beta != 0.0f, heads * p);
  }, reads_parents({}));
}

// y = x[..., begin:end, ...] along axis;  dx[..., begin:end, ...] += dy
Var slice(const Var& x, std::size_t axis, std::size_t begin, std::size_t end) {
  check_axis("slice", x, axis);
  if (begin > end || end > x.dim(axis))
    throw std::invalid_argument("slice: [" + std::to_string(begin) + ", " + std::to_string(end) +
                                ") out of range for axis " + std::to_string(axis) + " of " +
                                shape_str(x.shape()));
  const AxisView v = around(x.shape(), axis);
  const std::size_t len = end - begin;
  Shape out = x.shape();
  out[axis] = len;
  Tensor y = Tensor::from_shape(out);
  for (std::size_t o = 0; o < v.outer; ++o)
    std::copy_n(x.value().data() + (o * v.n + begin) * v.inner, len * v.inner,
                y.data() + o * len * v.inner);
  return graph_node(std::move(y), {x}, [v, begin, len](Node& n) {
    float* dx = n.parents[0]->grad_buffer().data();
    const float* dy = n.grad.data();
    for (std::size_t o = 0; o < v.outer; ++o)
      for (std::size_t i = 0; i < len * v.inner; ++i)
        dx[(o * v.n + begin) * v.inner + i] += dy[o * len * v.inner + i];
  }, reads_parents({}));
}

// y = [x_0, x_1, ...] joined along axis;  dx_i += the slab of dy that came from x_i
Var concat(const std::vector<Var>& xs, std::size_t axis) {
  if (xs.empty()) throw std::invalid_argument("concat: no inputs");
  check_axis("concat", xs[0], axis);
  Shape out = xs[0].shape();
  out[axis] = 0;
  for (const Var& x : xs) {
    Shape s = x.shape();
    s[axis] = 0;
    if (s != out)
      throw std::invalid_argument("concat: shapes " + shape_str(xs[0].shape()) + " and " +
                                  shape_str(x.shape()) + " differ outside axis " + std::to_string(axis));
  }
  for (const Var& x : xs) out[axis] += x.dim(axis);
  const AxisView v = around(out, axis);
  Tensor y = Tensor::from_shape(out);
  std::vector<std::size_t> offsets;  // start of each input along the axis
  std::size_t offset = 0;
  for (const Var& x : xs) {
    const std::size_t len = x.dim(axis);
    for (std::size_t o = 0; o < v.outer; ++o)
      std::copy_n(x.value().data() + o * len * v.inner, len * v.inner,
                  y.data() + (o * v.n + offset) * v.inner);
    offsets.push_back(offset);
    offset += len;
  }
  return graph_node(std::move(y), xs, [v, offsets, axis](Node& n) {
    for (std::size_t i = 0; i < n.parents.size(); ++i) {
      if (!n.wants(i)) continue;
      const std::size_t len = n.parents[i]->shape()[axis];
      float* dx = n.parents[i]->grad_buffer().data();
      for (std::size_t o = 0; o < v.outer; ++o)
        for (std::size_t j = 0; j < len * v.inner; ++j)
          dx[o * len * v.inner + j] += n.grad.data()[(o * v.n + offsets[i]) * v.inner + j];
    }
  }, reads_parents({}));
}

// y[..., j, ...] = x[..., index[j], ...];  dx[..., index[j], ...] += dy[..., j, ...]
Var index_select(const Var& x, std::size_t axis, const IntTensor& index) {
  check_axis("index_select", x, axis);
  const AxisView v = around(x.shape(), axis);
  for (int i : index)
    if (i < 0 || static_cast<std::size_t>(i) >= v.n)
      throw std::out_of_range("index_select: index " + std::to_string(i) + " out of range [0, " +
                              std::to_string(v.n) + ") on axis " + std::to_string(axis) + " of " +
                              shape_str(x.shape()));
  const Shape xs = x.shape();
  const auto at = xs.begin() + static_cast<std::ptrdiff_t>(axis);
  Shape out(xs.begin(), at);
  out.insert(out.end(), index.shape().begin(), index.shape().end());
  out.insert(out.end(), at + 1, xs.end());
  const std::size_t count = index.size();
  Tensor y = Tensor::from_shape(out);
  for (std::size_t o = 0; o < v.outer; ++o)
    for (std::size_t j = 0; j < count; ++j)
      std::copy_n(x.value().data() + (o * v.n + static_cast<std::size_t>(index.data()[j])) * v.inner,
                  v.inner, y.data() + (o * count + j) * v.inner);
  return graph_node(std::move(y), {x}, [v, index](Node& n) {
    float* dx = n.parents[0]->grad_buffer().data();
    const std::size_t count = index.size();
    for (std::size_t o = 0; o < v.outer; ++o)
      for (std::size_t j = 0; j < count; ++j) {
        float* d = dx + (o * v.n + static_cast<std::size_t>(index.data()[j])) * v.inner;
        const float* g = n.grad.data() + (o * count + j) * v.inner;
        for (std::size_t i = 0; i < v.inner; ++i) d[i] += g[i];
      }
  }, reads_parents({}));
}

}  // namespace attn
