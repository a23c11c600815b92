// A plugin built against another plugin API version (a future one).
#include <attnlab/plugin.hpp>
#undef ATTNLAB_PLUGIN_API_VERSION
#define ATTNLAB_PLUGIN_API_VERSION 999

ATTNLAB_PLUGIN(registry) { (void)registry; }
