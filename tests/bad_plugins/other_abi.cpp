// A plugin compiled without XSIMD (meson adds -UXTENSOR_USE_XSIMD for it): its tensors would be
// laid out differently from attnlab's, so the loader must refuse it before registering.
#include <attnlab/plugin.hpp>

ATTNLAB_PLUGIN(registry) { (void)registry; }
