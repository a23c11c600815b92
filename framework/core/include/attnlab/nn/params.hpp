// Named, hierarchical parameters. A ParamStore owns every parameter of a model under a dotted
// path ("encoder.layer0.W_xh"); these paths become HDF5 groups/datasets when a run is saved.
// A ParamScope is a cursor into the store: modules create their parameters through the scope
// they are given and hand child scopes to their sub-modules.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/autodiff/var.hpp"
#include "attnlab/nn/init.hpp"

namespace attn {

class ParamStore {
 public:
  // Adds a parameter (a leaf that takes a gradient). Refuses a duplicate or malformed name.
  Var add(const std::string& name, Tensor value);
  // The parameter called `name`; an unknown name is an error listing the known ones.
  const Var& get(const std::string& name) const;
  bool contains(const std::string& name) const;
  // In creation order (stable: the order modules were built in).
  const NamedVars& items() const { return items_; }
  std::size_t size() const { return items_.size(); }
  std::size_t num_values() const;  // total number of scalars
  void zero_grad() const;

  // The memory a model keeps: each parameter's value, gradient and optimizer state (Adam's two
  // moments), 4 floats an element, plus the constant tables its modules keep (a positional
  // encoding). With a limit set, a parameter or table that would take it past the limit is
  // refused before it is allocated (MemoryLimitError naming it, its shape and the total).
  static constexpr double bytes_per_parameter = 4 * sizeof(float);
  void limit_kept_bytes(double limit) { limit_ = limit; }
  double kept_bytes() const { return kept_; }
  // Counts a table of `shape` floats a module keeps under the name `name` (checked as above).
  void keep_table(const std::string& name, const Shape& shape);
  // What is kept once `what` of `shape` is added; throws MemoryLimitError past the limit.
  double kept_with(const std::string& what, const Shape& shape, double bytes_per_element) const;

 private:
  NamedVars items_;
  double kept_ = 0, limit_ = 0;  // limit 0: none
};

class ParamScope {
 public:
  ParamScope(ParamStore& store, Rng& rng, std::string prefix = "")
      : store_(&store), rng_(&rng), prefix_(std::move(prefix)) {}

  // A scope one level down: child("layer0") of "encoder" is "encoder.layer0".
  ParamScope child(const std::string& name) const;
  // Creates parameter `prefix.name` of `shape`, filled by `init` from the run's rng.
  Var param(const std::string& name, const Shape& shape, const Init& init) const;
  // Tells the store that a module keeps a constant table `prefix.name` of `shape` floats, before
  // the module allocates it (see ParamStore::keep_table).
  void keep_table(const std::string& name, const Shape& shape) const { store_->keep_table(path(name), shape); }
  // The full path a name gets in this scope.
  std::string path(const std::string& name) const;
  // Re-draws, with `init`, every parameter under this scope for which select(path, shape) holds
  // (e.g. a model's own initialisation scheme over its sub-modules' parameters).
  void reinitialise(const std::function<bool(const std::string&, const Shape&)>& select, const Init& init) const;

  Rng& rng() const { return *rng_; }
  ParamStore& store() const { return *store_; }
  const std::string& prefix() const { return prefix_; }

 private:
  ParamStore* store_;
  Rng* rng_;
  std::string prefix_;
};

}  // namespace attn
