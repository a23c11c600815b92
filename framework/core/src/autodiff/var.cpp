#include "attnlab/autodiff/var.hpp"

#include <stdexcept>
#include <unordered_set>

namespace attn {

Tensor& Node::grad_buffer() {
  if (!has_grad) {
    grad = xt::zeros<float>(value.shape());
    has_grad = true;
  }
  return grad;
}

std::pair<float*, float> Node::grad_target() {
  if (has_grad) return {grad.data(), 1.0f};
  grad = Tensor::from_shape(value.shape());
  has_grad = true;
  return {grad.data(), 0.0f};
}

void Node::accumulate(std::size_t i, const Tensor& g) {
  Node& p = *parents[i];
  if (!p.requires_grad) return;
  if (g.shape() != p.value.shape()) return accumulate(i, sum_to(g, shape_of(p.value)));
  if (p.has_grad) {
    p.grad += g;
  } else {  // first contribution: take it as the gradient (no zero fill, no add)
    p.grad = g;
    p.has_grad = true;
  }
}

void Node::accumulate(std::size_t i, Tensor&& g) {
  Node& p = *parents[i];
  if (!p.requires_grad || g.shape() != p.value.shape() || p.has_grad) return accumulate(i, static_cast<const Tensor&>(g));
  p.grad = std::move(g);
  p.has_grad = true;
}

float Var::item() const {
  if (node_->value.size() != 1)
    throw std::invalid_argument("item(): expected one element, got shape " +
                                shape_str(shape()));
  return node_->value.data()[0];
}

Var constant(Tensor value) {
  auto n = std::make_shared<Node>();
  n->value = std::move(value);
  return Var(std::move(n));
}

Var leaf(Tensor value) {
  auto n = std::make_shared<Node>();
  n->value = std::move(value);
  n->requires_grad = true;
  return Var(std::move(n));
}

namespace {
thread_local bool recording = true;  // false while a NoGrad lives on this thread
}  // namespace

NoGrad::NoGrad() : previous_(recording) { recording = false; }
bool graph_recording() { return recording; }
NoGrad::~NoGrad() { recording = previous_; }

Var graph_node(Tensor value, std::vector<Var> parents, std::function<void(Node&)> backward) {
  auto n = std::make_shared<Node>();
  n->value = std::move(value);
  for (const Var& p : parents) n->requires_grad = recording && (n->requires_grad || p.requires_grad());
  if (n->requires_grad) {
    n->parents.reserve(parents.size());
    for (const Var& p : parents) n->parents.push_back(p.node());
    n->backward = std::move(backward);
  }
  return Var(std::move(n));
}

void Var::backward() const { backward(xt::ones<float>(node_->value.shape())); }

void Var::backward(const Tensor& seed) const {
  if (!node_->requires_grad)
    throw std::logic_error("backward(): this Var does not depend on anything that takes a gradient");
  if (shape_of(seed) != shape())
    throw std::invalid_argument("backward(): seed shape " + shape_str(shape_of(seed)) +
                                " differs from value shape " + shape_str(shape()));
  // Reverse topological order by an iterative depth-first search (graphs can be deep: RNNs).
  std::vector<Node*> order;
  std::unordered_set<Node*> seen;
  std::vector<std::pair<Node*, std::size_t>> stack{{node_.get(), 0}};
  seen.insert(node_.get());
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next < n->parents.size()) {
      Node* p = n->parents[next++].get();
      if (p->requires_grad && seen.insert(p).second) stack.emplace_back(p, 0);
    } else {
      order.push_back(n);
      stack.pop_back();
    }
  }
  node_->grad_buffer() += seed;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = *it;
    if (!n->backward || !n->has_grad) continue;
    n->backward(*n);
    n->grad = Tensor();  // intermediate gradients are not kept; leaves keep theirs
    n->has_grad = false;
  }
}

}  // namespace attn
