// Attention rollout and flow; the math is in attention_rollout.hpp.
#include "attnlab/models/attention_rollout.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>
#include <vector>

namespace attn {
namespace {

using Matrix = std::vector<std::vector<double>>;

// Â_l = rownorm(fuse_h(A_l) + I) over the first n positions.
Matrix with_residual(const Tensor& w, std::size_t layer, HeadFusion fusion, std::size_t n) {
  const std::size_t heads = w.shape()[1];
  Matrix a(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    double total = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      double v = fusion == HeadFusion::mean ? 0.0 : static_cast<double>(w(layer, 0, i, j));
      for (std::size_t h = 0; h < heads; ++h) {
        const double x = w(layer, h, i, j);
        if (fusion == HeadFusion::mean) v += x / static_cast<double>(heads);
        else v = fusion == HeadFusion::max ? std::max(v, x) : std::min(v, x);
      }
      a[i][j] = v + (i == j ? 1.0 : 0.0);
      total += a[i][j];
    }
    for (double& x : a[i]) x = total > 0.0 ? x / total : 0.0;
  }
  return a;
}

void require_square(const Tensor& w, std::size_t n_valid, const char* what) {
  if (w.dimension() != 4 || w.shape()[2] != w.shape()[3] || w.shape()[0] == 0 || w.shape()[1] == 0)
    throw std::invalid_argument(std::string(what) + " composes self-attention maps [layer, head, n, n]; got shape " + shape_str(shape_of(w)));
  if (n_valid > w.shape()[2]) throw std::invalid_argument(std::string(what) + ": more valid positions than the map has");
}

Matrix identity(std::size_t n) {
  Matrix r(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) r[i][i] = 1.0;
  return r;
}

Matrix product(const Matrix& a, const Matrix& b) {
  const std::size_t n = a.size();
  Matrix out(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t j = 0; j < n; ++j) out[i][j] += a[i][k] * b[k][j];
  return out;
}

Tensor as_tensor(const Matrix& m, std::size_t n_all) {
  Tensor out = xt::zeros<float>({n_all, n_all});
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m.size(); ++j) out(i, j) = static_cast<float>(m[i][j]);
  return out;
}

// Edmonds-Karp on a dense residual graph: the maximum flow from s to t.
double max_flow(std::vector<std::vector<double>> capacity, std::size_t s, std::size_t t) {
  const std::size_t v = capacity.size();
  double flow = 0.0;
  for (;;) {
    std::vector<std::size_t> parent(v, v);
    parent[s] = s;
    std::queue<std::size_t> queue;
    queue.push(s);
    while (!queue.empty() && parent[t] == v) {
      const std::size_t u = queue.front();
      queue.pop();
      for (std::size_t x = 0; x < v; ++x)
        if (parent[x] == v && capacity[u][x] > 1e-12) parent[x] = u, queue.push(x);
    }
    if (parent[t] == v) return flow;
    double push = std::numeric_limits<double>::infinity();
    for (std::size_t x = t; x != s; x = parent[x]) push = std::min(push, capacity[parent[x]][x]);
    for (std::size_t x = t; x != s; x = parent[x]) capacity[parent[x]][x] -= push, capacity[x][parent[x]] += push;
    flow += push;
  }
}

}  // namespace

HeadFusion head_fusion(const std::string& name) {
  if (name == "mean") return HeadFusion::mean;
  if (name == "max") return HeadFusion::max;
  if (name == "min") return HeadFusion::min;
  throw std::invalid_argument("head fusion '" + name + "': expected mean, max or min");
}

Tensor attention_rollout(const Tensor& w, HeadFusion fusion, std::size_t n) {
  require_square(w, n, "attention rollout");
  Matrix r = identity(n);
  for (std::size_t l = 0; l < w.shape()[0]; ++l) r = product(with_residual(w, l, fusion, n), r);  // R <- Â_l R
  return as_tensor(r, w.shape()[2]);
}

Tensor gradient_rollout(const Tensor& g, std::size_t n) {
  require_square(g, n, "gradient-weighted rollout");
  const std::size_t heads = g.shape()[1];
  Matrix r = identity(n);
  for (std::size_t l = 0; l < g.shape()[0]; ++l) {  // R <- R + Ā_l R
    Matrix a(n, std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t h = 0; h < heads; ++h) a[i][j] += std::max(0.0, static_cast<double>(g(l, h, i, j))) / static_cast<double>(heads);
    const Matrix spread = product(a, r);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) r[i][j] += spread[i][j];
  }
  for (std::size_t i = 0; i < n; ++i) {  // R - I, rows over their sums
    r[i][i] -= 1.0;
    double total = 0.0;
    for (double x : r[i]) total += x;
    for (double& x : r[i]) x = total > 0.0 ? x / total : 0.0;
  }
  return as_tensor(r, g.shape()[2]);
}

Tensor attention_flow(const Tensor& w, HeadFusion fusion, std::size_t n) {
  require_square(w, n, "attention flow");
  if (n > max_flow_positions)
    throw std::invalid_argument("attention flow solves a maximum flow per pair of positions: at most " + std::to_string(max_flow_positions) +
                                " positions (this map has " + std::to_string(n) + "; rollout has no such limit)");
  const std::size_t layers = w.shape()[0], nodes = (layers + 1) * n;
  std::vector<std::vector<double>> capacity(nodes, std::vector<double>(nodes, 0.0));  // node l * n + j
  for (std::size_t l = 0; l < layers; ++l) {
    const Matrix a = with_residual(w, l, fusion, n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) capacity[l * n + j][(l + 1) * n + i] = a[i][j];
  }
  Matrix f(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    double total = 0.0;
    for (std::size_t j = 0; j < n; ++j) total += f[i][j] = max_flow(capacity, j, layers * n + i);
    for (double& x : f[i]) x = total > 0.0 ? x / total : 0.0;
  }
  return as_tensor(f, w.shape()[2]);
}

}  // namespace attn
