// The one header a plugin includes: the core (tensors, autodiff, layers, gradcheck), the five
// plugin interfaces with their helper bases (GatedCell, ProjectedMode),
// options, the registries, and the entry-point macro. Nothing of the lab (HDF5, YAML, TBB) is
// reachable from here.
//
//   #include <attnlab/plugin.hpp>
//   class Cosine final : public attn::ScoringFunction { ... };
//   ATTNLAB_PLUGIN(registry) { registry.scoring.add<Cosine>("cosine", "cosine similarity / T"); }
//
// A plugin library exports one C function, attnlab_plugin_entry(), returning its API version,
// its ABI tag and its registration function. The host checks the version, then the tag, before
// calling anything else.
#pragma once

#include "attnlab/attention/rotation.hpp"
#include "attnlab/attnlab.hpp"
#include "attnlab/plugins/gated_cell.hpp"
#include "attnlab/plugins/projected_mode.hpp"
#include "attnlab/registries.hpp"

// Bump when anything a plugin sees changes incompatibly (interfaces, Registries, tensors).
// 2: the core/lab split (Registries derives from PluginKinds; QKV is FormedQkv; record() is
//    graph_node(); errors.hpp; ForwardContext).
// 3: a fourth plugin kind, normalizers (PluginKinds and Registries gained a registry);
//    attention_pooling takes the weights.
// 4: PluginInfo carries an ABI tag.
// 5: Model::loss takes a TrainingStep (label smoothing, teacher forcing); Optimizer::step takes
//    the update's learning rate (schedules) and OptimizerArgs no longer carries one.
// 6: DatasetSource::footprint and Model::evaluation_footprint (memory estimates); ParamStore
//    counts and limits the memory a model keeps (ParamScope::keep_table).
// 7: ScoringFunction::dot_product_scale and NormalizerTraits::masked_softmax (fused attention).
// 8: Tensor's allocator is attn::TensorAllocator (tensor_memory.hpp: huge pages for large
//    tensors), so every function that takes or returns a Tensor has another signature.
// 9: Data holds a third family, VectorData (sets of vectors: images, graphs, frames, labelled
//    token sets), so ModelArgs and DatasetSource::load changed; Attention's call takes a score
//    bias.
// 10: a fifth plugin kind, positional schemes (PluginKinds and Registries gained a registry);
//    AttentionConfig::positions is a checked positional scheme; DatasetSource::at_length
//    (evaluation at other lengths), VectorData::labels_answer, MultiHead::kv_heads.
// 11: AttentionMode::traits() (ModeTraits: keys from the query source or the key source);
//    gates on attention heads (HeadGates, AttentionConfig::site, Model::head_gates) and
//    Model::evaluation_loss / evaluation_size (ablation and head importance).
// 12: Model::prediction_loss and HeadGates watching attention weights (gradient-weighted rollout);
//    graph_recording().
// 13: MultiHead::pytorch_init (MultiHead's layout); API 1's and 2's names record, QKV,
//    OptionError and select_rows back as deprecated aliases that name their successors (kept
//    through 15).
// 14: ConformanceHints: a plugin class declares option sets and a finite-difference step for the
//    conformance suite (attnlab check); Registry entries carry them.
// 15: graph_node's BackwardReads (which values a backward reads; the others are released early)
//    and Node::shape(); Node's counts of children and readers.
#define ATTNLAB_PLUGIN_API_VERSION 15

namespace attn {

// What must agree between attnlab and a plugin for tensors to cross between them, as the
// translation unit that expands ATTNLAB_ABI_TAG was compiled: xtensor's containers are aligned
// to the SIMD width XSIMD targets (-march), or not at all without XSIMD; the C++ ABI is GCC's.
struct AbiTag {
  std::size_t tensor_alignment;  // bytes; 0 without XSIMD (-DXTENSOR_USE_XSIMD)
  const char* simd;              // the -march choice XSIMD targets ("avx512bw", "avx2", ...)
  int gxx_abi;                   // __GXX_ABI_VERSION
  int cxx11_abi;                 // _GLIBCXX_USE_CXX11_ABI (std::string's layout)
};
bool compatible(const AbiTag& a, const AbiTag& b);  // all but the simd name must agree
std::string abi_text(const AbiTag& tag);            // "tensors aligned to 64 bytes (XSIMD avx512bw), ..."

struct PluginInfo {
  int api_version;  // read first, before anything else is trusted
  AbiTag abi;       // read second (this layout is API version 4's)
  void (*register_plugins)(Registries& registries);
};

}  // namespace attn

#ifdef XTENSOR_USE_XSIMD
#define ATTNLAB_ABI_TAG ::attn::AbiTag{XSIMD_DEFAULT_ALIGNMENT, xsimd::default_arch::name(), __GXX_ABI_VERSION, _GLIBCXX_USE_CXX11_ABI}
#else
#define ATTNLAB_ABI_TAG ::attn::AbiTag{0, "none", __GXX_ABI_VERSION, _GLIBCXX_USE_CXX11_ABI}
#endif

#define ATTNLAB_PLUGIN(registries)                                                        \
  static void attnlab_register_plugins_(::attn::Registries& registries);                 \
  extern "C" __attribute__((visibility("default"))) const ::attn::PluginInfo*            \
  attnlab_plugin_entry() {                                                               \
    static const ::attn::PluginInfo info{ATTNLAB_PLUGIN_API_VERSION, ATTNLAB_ABI_TAG,       \
                                         &attnlab_register_plugins_};                      \
    return &info;                                                                        \
  }                                                                                      \
  static void attnlab_register_plugins_(::attn::Registries& registries)
