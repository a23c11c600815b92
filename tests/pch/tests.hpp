// Headers that most test files include, compiled once per build (meson's cpp_pch; see
// framework/core/pch/core.hpp): Catch2's single header and the core's. Only the build uses it.
#pragma once

#include <catch2/catch.hpp>

#include "../../framework/lab/pch/lab.hpp"
