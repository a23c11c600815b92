// Headers that most of the lab's files include, compiled once per build (meson's cpp_pch; see
// framework/core/pch/core.hpp). Only the build uses this file.
#pragma once

#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "../../core/pch/core.hpp"
