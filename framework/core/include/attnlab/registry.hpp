// A registry of one kind of plugin: name -> (description, factory).
//
// One Registry per kind (scoring functions, RNN cells, attention modes, ...), owned by the
// program (see registries.hpp): no global state. A duplicate name is refused; an unknown name
// is an error that lists the known names and suggests the closest.
//
// Objects made by a plugin loaded from a shared library keep that library loaded (the entry
// holds it, and create() ties it to every object's lifetime), so nothing outlives its code.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/conformance_hints.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/suggest.hpp"

namespace attn {

template <class Base, class Args>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Base>(const Args&)>;

  struct Entry {
    std::shared_ptr<void> library;  // first member: destroyed last, after the factory's code ran
    std::string name, description, origin;
    Factory make;
    ConformanceHints checks;  // what the conformance suite checks beyond the defaults
  };

  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  // Registers T, constructed as T(args), with the conformance hints T declares (if any).
  template <class T>
  void add(const std::string& name, const std::string& description) {
    ConformanceHints checks;
    if constexpr (declares_conformance_hints<T>::value) checks = T::conformance_hints();
    add(name, description, [](const Args& args) -> std::unique_ptr<Base> { return std::make_unique<T>(args); }, std::move(checks));
  }
  void add(const std::string& name, const std::string& description, Factory make, ConformanceHints checks = {}) {
    if (name.empty()) throw RegistryError(kind_ + " name must not be empty");
    if (entries_.count(name))
      throw RegistryError("duplicate " + kind_ + " '" + name + "' (from " + origin_ + "): '" +
                          name + "' is already registered by " + entries_.at(name).origin);
    entries_[name] = Entry{library_, name, description, origin_, std::move(make), std::move(checks)};
  }

  // Construct the plugin called `name`. The object keeps its plugin library loaded.
  std::shared_ptr<Base> create(const std::string& name, const Args& args) const {
    const Entry& e = get(name);
    std::unique_ptr<Base> made = e.make(args);
    return std::shared_ptr<Base>(made.release(), [library = e.library](Base* p) { delete p; });
  }

  // "scoring function 'cosine' (plugin /path/libcosine.so)", or without the plugin for built-ins.
  std::string describe(const std::string& name) const {
    const Entry& e = get(name);
    return kind_ + " '" + name + "'" + (e.library ? " (plugin " + e.origin + ")" : "");
  }

  const Entry& get(const std::string& name) const {
    const auto it = entries_.find(name);
    if (it == entries_.end()) throw RegistryError(unknown_name_message(kind_, name, names()));
    return it->second;
  }
  bool contains(const std::string& name) const { return entries_.count(name) > 0; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& kv : entries_) out.push_back(kv.first);
    return out;
  }
  const std::map<std::string, Entry>& entries() const { return entries_; }
  const std::string& kind() const { return kind_; }

  // Throws if any name of `staged` is already registered here.
  void check_absorb(const Registry& staged) const {
    for (const auto& kv : staged.entries_)
      if (entries_.count(kv.first))
        throw RegistryError("duplicate " + kind_ + " '" + kv.first + "': already registered by " +
                            entries_.at(kv.first).origin);
  }
  // Moves every entry of `staged` here, all or nothing.
  void absorb(Registry&& staged) {
    check_absorb(staged);
    for (auto& kv : staged.entries_) entries_.emplace(kv.first, std::move(kv.second));
    staged.entries_.clear();
  }

  // While a plugin library registers, the loader sets where entries come from (shown by
  // `attnlab plugins` and in duplicate-name errors) and the handle that keeps it loaded.
  void set_origin(std::string origin, std::shared_ptr<void> library) {
    origin_ = std::move(origin);
    library_ = std::move(library);
  }

 private:
  std::string kind_;
  std::map<std::string, Entry> entries_;
  std::string origin_ = "attnlab (built-in)";
  std::shared_ptr<void> library_;
};

}  // namespace attn
