#include "attnlab/nn/params.hpp"

#include "attnlab/footprint.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace attn {
namespace {

// A path is dot-separated segments of [A-Za-z0-9_], each non-empty (they become HDF5 names).
bool valid_path(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '.' && name[i + 1] == '.') return false;
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  }
  return true;
}

}  // namespace

Var ParamStore::add(const std::string& name, Tensor value) {
  if (!valid_path(name))
    throw std::invalid_argument("parameter name '" + name +
                                "' is not a dotted path of [A-Za-z0-9_] segments");
  if (contains(name)) throw std::invalid_argument("parameter '" + name + "' already exists");
  kept_ = kept_with("parameter '" + name + "'", shape_of(value), bytes_per_parameter);
  items_.emplace_back(name, leaf(std::move(value)));
  return items_.back().second;
}

bool ParamStore::contains(const std::string& name) const {
  return std::any_of(items_.begin(), items_.end(), [&](const auto& p) { return p.first == name; });
}

const Var& ParamStore::get(const std::string& name) const {
  for (const auto& [n, v] : items_)
    if (n == name) return v;
  std::string known;
  for (const auto& item : items_) known += (known.empty() ? "" : ", ") + item.first;
  throw std::out_of_range("no parameter '" + name + "'; known: " + (known.empty() ? "(none)" : known));
}

void ParamStore::keep_table(const std::string& name, const Shape& shape) { kept_ = kept_with("table '" + name + "'", shape, sizeof(float)); }

double ParamStore::kept_with(const std::string& what, const Shape& shape, double bytes_per_element) const {
  double elements = 1;
  for (std::size_t n : shape) elements *= static_cast<double>(n);
  const double after = kept_ + elements * bytes_per_element;
  if (limit_ > 0 && after > limit_)
    throw MemoryLimitError("the model's " + what + " of shape " + shape_str(shape) + " takes what it keeps to " +
                               memory_text(after) + " (parameters with their gradients and Adam's moments, and its tables), " +
                               "over the run's memory limit of " + memory_text(limit_),
                           shape);
  return after;
}

std::size_t ParamStore::num_values() const {
  std::size_t n = 0;
  for (const auto& item : items_) n += item.second.value().size();
  return n;
}

void ParamStore::zero_grad() const {
  for (const auto& item : items_) item.second.zero_grad();
}

ParamScope ParamScope::child(const std::string& name) const {
  return ParamScope(*store_, *rng_, path(name));
}

std::string ParamScope::path(const std::string& name) const {
  return prefix_.empty() ? name : prefix_ + "." + name;
}

void ParamScope::reinitialise(const std::function<bool(const std::string&, const Shape&)>& select,
                              const Init& init) const {
  const std::string prefix = prefix_.empty() ? "" : prefix_ + ".";
  for (const auto& [name, var] : store_->items())
    if (name.compare(0, prefix.size(), prefix) == 0 && select(name, var.shape()))
      var.mutable_value() = initialised(var.shape(), init, *rng_);
}

Var ParamScope::param(const std::string& name, const Shape& shape, const Init& init) const {
  store_->kept_with("parameter '" + path(name) + "'", shape, ParamStore::bytes_per_parameter);  // before allocating
  return store_->add(path(name), initialised(shape, init, *rng_));
}

}  // namespace attn
