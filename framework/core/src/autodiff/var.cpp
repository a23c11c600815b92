#include "attnlab/autodiff/var.hpp"

#include <stdexcept>
#include <unordered_map>

namespace attn {

Tensor& Node::grad_buffer() {
  if (!has_grad) {
    grad = xt::zeros<float>(shape());
    has_grad = true;
  }
  return grad;
}

std::pair<float*, float> Node::grad_target() {
  if (has_grad) return {grad.data(), 1.0f};
  grad = Tensor::from_shape(shape());
  has_grad = true;
  return {grad.data(), 0.0f};
}

Shape Node::shape() const { return held == Held::value ? shape_of(value) : released_shape; }

Node::~Node() {
  for (const NodePtr& p : parents) p->children.fetch_sub(1, std::memory_order_relaxed);
}

namespace {

void release(Node& n, Node::Held how) {
  if (n.held != Node::Held::value) return;
  n.released_shape = shape_of(n.value);
  n.value = Tensor::from_shape({0});  // (empty, not the default 0-d tensor of one element)
  n.held = how;
}

}  // namespace

void release_if_unread(Node& n) {
  if (n.readers.load(std::memory_order_relaxed) == 0) release(n, Node::Held::released);
}

void Node::accumulate(std::size_t i, const Tensor& g) {
  Node& p = *parents[i];
  if (!p.requires_grad) return;
  const Shape target = p.shape();
  if (shape_of(g) != target) return accumulate(i, sum_to(g, target));
  if (p.has_grad) {
    p.grad += g;
  } else {  // first contribution: take it as the gradient (no zero fill, no add)
    p.grad = g;
    p.has_grad = true;
  }
}

void Node::accumulate(std::size_t i, Tensor&& g) {
  Node& p = *parents[i];
  if (!p.requires_grad || shape_of(g) != p.shape() || p.has_grad) return accumulate(i, static_cast<const Tensor&>(g));
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

Var graph_node(Tensor value, std::vector<Var> parents, std::function<void(Node&)> backward, const BackwardReads& reads) {
  auto n = std::make_shared<Node>();
  n->value = std::move(value);
  for (const Var& p : parents) n->requires_grad = recording && (n->requires_grad || p.requires_grad());
  if (n->requires_grad) {
    n->parents.reserve(parents.size());
    for (const Var& p : parents) {
      n->parents.push_back(p.node());
      p.node()->children.fetch_add(1, std::memory_order_relaxed);
    }
    const auto read = [](Node& x) { x.readers.fetch_add(1, std::memory_order_relaxed); };
    if (reads.every_parent)
      for (const NodePtr& p : n->parents) read(*p);
    else
      for (const std::size_t i : reads.parents) read(*n->parents.at(i));
    if (reads.own_value) read(*n);
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
  // Reverse topological order by an iterative depth-first search (graphs can be deep: RNNs),
  // counting the edges into each node from nodes of this graph.
  std::vector<const NodePtr*> order;
  std::unordered_map<const Node*, std::uint32_t> reached{{node_.get(), 0}};
  std::vector<std::pair<const NodePtr*, std::size_t>> stack{{&node_, 0}};
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next < (*n)->parents.size()) {
      const NodePtr& p = (*n)->parents[next++];
      if (p->held == Node::Held::spent)
        throw std::logic_error("backward(): this graph was back-propagated before, and its values were released then; "
                               "compute the result again to back-propagate it again");
      if (p->requires_grad && reached[p.get()]++ == 0) stack.emplace_back(&p, 0);
    } else {
      order.push_back(n);
      stack.pop_back();
    }
  }
  node_->grad_buffer() += seed;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const NodePtr& n = **it;
    if (!n->backward) continue;  // a leaf: it keeps its value and gradient
    if (n->has_grad) {
      n->backward(*n);
      n->grad = Tensor();  // intermediate gradients are not kept
      n->has_grad = false;
    }
    // Every node that reads this value has run its backward: release it unless a Var holds it.
    const long children = n->children.load(std::memory_order_relaxed);
    if (n != node_ && reached[n.get()] == children && n.use_count() == children) release(*n, Node::Held::spent);
  }
}

}  // namespace attn
