#include "attnlab/build_info.hpp"

#include "attnlab/plugin.hpp"

extern "C" char* openblas_get_corename();

namespace attn {

std::string build_signature() {
  static const AbiTag ours = ATTNLAB_ABI_TAG;
  return "plugin API " + std::to_string(ATTNLAB_PLUGIN_API_VERSION) + "; " + abi_text(ours) + "; OpenBLAS " +
         openblas_get_corename();
}

}  // namespace attn
