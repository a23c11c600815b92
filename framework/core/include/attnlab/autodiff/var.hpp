// Reverse-mode automatic differentiation.
//
// A Var is a handle to a Node: a value, a gradient, the parent Nodes it was computed from and
// a backward closure. Every primitive op records its result Node with its parents, so the
// graph of one computation is owned by the Vars the caller holds (no global tape, no global
// state: independent runs train at once on different threads). backward() visits the graph in
// reverse topological order; each closure ADDS its contribution into its parents' gradients.
//
// A value is kept only while something may read it. A primitive says which values its backward
// reads (BackwardReads); an intermediate value that no backward reads is released when the last
// Var that could still read it goes, and backward() releases each intermediate value once every
// backward that reads it has run (a graph is back-propagated once, as with PyTorch's default).
// Values a caller holds a Var to are never released (docs/autodiff.md, "Values kept").
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attn {

struct Node;
using NodePtr = std::shared_ptr<Node>;

struct Node {
  Tensor value;
  Tensor grad;            // meaningful only when has_grad
  bool has_grad = false;  // set when something accumulated into grad
  bool requires_grad = false;
  std::vector<NodePtr> parents;
  // Reads this node's `grad` (and `value`) and adds into the parents' gradients. It runs once, and
  // backward() drops `grad` right after (intermediate gradients are not kept), so it may also
  // overwrite `grad` as scratch (linear_relu masks it in place).
  std::function<void(Node&)> backward;

  // The gradient buffer, zero-initialised with the value's shape on first use.
  Tensor& grad_buffer();
  // For a kernel that writes EVERY element as out = contribution (beta 0) or out += contribution
  // (beta 1), like sgemm's beta: the gradient buffer and the beta to use, 0 when nothing was
  // accumulated yet (the buffer is then allocated without the zero fill), 1 otherwise. With
  // beta 0 never read the buffer, not even as 0 * out: it holds whatever the memory held, NaN
  // included (tests/tools/nan_fill.cpp shows it; test "results do not depend on what freshly
  // allocated memory holds").
  std::pair<float*, float> grad_target();
  // True when parent i takes a gradient (skip computing what nobody needs).
  bool wants(std::size_t i) const { return parents[i]->requires_grad; }
  // parents[i].grad += g, where g may have been broadcast: it is summed down to the parent's shape.
  void accumulate(std::size_t i, const Tensor& g);
  void accumulate(std::size_t i, Tensor&& g);  // a temporary g is moved, not copied, when it is the first

  // The value's shape, also after the value is released (a backward that reads no value of a
  // parent reads its shape here, never from parents[i]->value).
  Shape shape() const;
  // What keeps the value (graph_node and Var maintain them).
  std::atomic<std::uint32_t> children{0};  // graph nodes that hold this one among their parents
  std::atomic<std::uint32_t> readers{0};   // backward closures that read this value, its own included
  enum class Held : std::uint8_t { value, released, spent };  // spent: released by a backward
  Held held = Held::value;
  Shape released_shape;

  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node();
};

// Releases n's value if no backward reads it; called by the last Var of n, once only the graph
// holds n besides it.
void release_if_unread(Node& n);

class Var {
 public:
  Var() = default;
  explicit Var(NodePtr node) : node_(std::move(node)) {}
  Var(const Var&) = default;
  Var(Var&&) noexcept = default;
  Var& operator=(Var other) noexcept {  // the handle replaced goes through the destructor's check
    node_.swap(other.node_);
    return *this;
  }
  ~Var() {
    if (node_ && node_->backward && node_.use_count() == 1 + static_cast<long>(node_->children.load(std::memory_order_relaxed)))
      release_if_unread(*node_);
  }

  const Tensor& value() const { return node_->value; }
  Tensor& mutable_value() const { return node_->value; }  // optimizers update parameters in place
  // The accumulated gradient (zeros of the value's shape when nothing accumulated yet).
  const Tensor& grad() const { return node_->grad_buffer(); }
  bool has_grad() const { return node_->has_grad; }
  bool requires_grad() const { return node_->requires_grad; }
  Shape shape() const { return shape_of(node_->value); }
  std::size_t dim(std::size_t axis) const { return node_->value.shape()[axis]; }
  std::size_t ndim() const { return node_->value.dimension(); }
  bool defined() const { return static_cast<bool>(node_); }
  float item() const;  // the value of a one-element Var

  // Back-propagate from this Var with d(this) = seed (ones when omitted).
  void backward() const;
  void backward(const Tensor& seed) const;
  void zero_grad() const { node_->has_grad = false; }

  const NodePtr& node() const { return node_; }

 private:
  NodePtr node_;
};

// Variables by name (a model's parameters by module path).
using NamedVars = std::vector<std::pair<std::string, Var>>;

// While a NoGrad lives on a thread, the graph records nothing there: every result is a
// constant, so a forward pass keeps no intermediate alive once it is used (evaluation and
// decoding, as PyTorch's torch.no_grad(); the W5 run's peak memory halved with it).
class NoGrad {
 public:
  NoGrad();
  ~NoGrad();
  NoGrad(const NoGrad&) = delete;
  NoGrad& operator=(const NoGrad&) = delete;

 private:
  bool previous_;
};

// Whether the graph records on this thread (no NoGrad alive).
bool graph_recording();

// A leaf that takes no gradient (data, masks, targets).
Var constant(Tensor value);
// A leaf that takes a gradient (parameters, or inputs under a gradient check).
Var leaf(Tensor value);

// Which values a primitive's backward reads: its result's value, and the values of which parents
// (by index). The values it does not read may be released before it runs; of those it reads the
// shape only, through Node::shape(). Without it, a backward is taken to read every value.
struct BackwardReads {
  bool own_value = true;
  bool every_parent = true;
  std::vector<std::size_t> parents;  // when not every_parent
};
// A backward that reads the values of these parents (none: {}), and its own value if own_value.
inline BackwardReads reads_parents(std::vector<std::size_t> parents, bool own_value = false) {
  return {own_value, false, std::move(parents)};
}

// The graph node of a primitive's result. If no parent requires a gradient the result is a constant
// and the closure is dropped; otherwise backward(node) will be called during backward().
// This is also the hook for fused primitives written in plugins.
Var graph_node(Tensor value, std::vector<Var> parents, std::function<void(Node&)> backward, const BackwardReads& reads = {});
// API 1's name, kept for API 13 only (docs/plugin-api-changes.md).
[[deprecated("record() is graph_node() since plugin API 2")]] inline Var record(Tensor value, std::vector<Var> parents,
                                                                            std::function<void(Node&)> backward) {
  return graph_node(std::move(value), std::move(parents), std::move(backward));
}

}  // namespace attn
