// Headers that most files of the core and of the built-in plugins include, compiled once per
// build (meson's cpp_pch): the xtensor headers alone are about half of a file's compile time.
// Only the build uses this file.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xview.hpp>

#include "attnlab/tensor.hpp"
