// The one header a plugin includes: the core (tensors, autodiff, layers), the plugin
// interfaces with their helper bases (GatedCell, ProjectedMode), options, the registries, and
// the entry-point macro. Nothing of the lab (HDF5, YAML, TBB) is reachable from here.
//
//   #include <attnlab/plugin.hpp>
//   class Cosine final : public attn::ScoringFunction { ... };
//   ATTNLAB_PLUGIN(registry) { registry.scoring.add<Cosine>("cosine", "cosine similarity / T"); }
//
// A plugin library exports one C function, attnlab_plugin_entry(), returning its API version
// and its registration function. The host checks the version before calling anything else.
#pragma once

#include "attnlab/attnlab.hpp"
#include "attnlab/plugins/gated_cell.hpp"
#include "attnlab/plugins/projected_mode.hpp"
#include "attnlab/registries.hpp"

// Bump when anything a plugin sees changes incompatibly (interfaces, Registries, tensors).
// 2: the core/lab split (Registries derives from PluginKinds; QKV is FormedQkv; record() is
//    graph_node(); errors.hpp; ForwardContext).
// 3: a fourth plugin kind, normalizers (PluginKinds and Registries gained a registry);
//    attention_pooling takes the weights.
#define ATTNLAB_PLUGIN_API_VERSION 3

namespace attn {

struct PluginInfo {
  int api_version;  // read first, before anything else is trusted
  void (*register_plugins)(Registries& registries);
};

}  // namespace attn

#define ATTNLAB_PLUGIN(registries)                                                        \
  static void attnlab_register_plugins_(::attn::Registries& registries);                 \
  extern "C" __attribute__((visibility("default"))) const ::attn::PluginInfo*            \
  attnlab_plugin_entry() {                                                               \
    static const ::attn::PluginInfo info{ATTNLAB_PLUGIN_API_VERSION, &attnlab_register_plugins_}; \
    return &info;                                                                        \
  }                                                                                      \
  static void attnlab_register_plugins_(::attn::Registries& registries)
