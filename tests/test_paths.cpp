// The paths of test_paths.hpp, from the definitions tests/meson.build gives this file alone.
#include "test_paths.hpp"

namespace attn::test::paths {

const char* const source_root = ATTNLAB_SOURCE_ROOT;
const char* const build_root = ATTNLAB_BUILD_ROOT;
const char* const golden_dir = ATTNLAB_GOLDEN_DIR;
const char* const example_plugin = ATTNLAB_EXAMPLE_PLUGIN;
const char* const example_plugin_dir = ATTNLAB_EXAMPLE_PLUGIN_DIR;
const char* const bad_plugin_dir = ATTNLAB_BAD_PLUGIN_DIR;
const char* const bad_plugin_src = ATTNLAB_BAD_PLUGIN_SRC;
const char* const nan_fill = ATTNLAB_NAN_FILL;

}  // namespace attn::test::paths
