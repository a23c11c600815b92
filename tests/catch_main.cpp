// Catch2's main, compiled once into its own static library (it takes ~20 s to build).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
