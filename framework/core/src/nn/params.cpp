#include "attnlab/nn/params.hpp"

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
  return store_->add(path(name), initialised(shape, init, *rng_));
}

}  // namespace attn
