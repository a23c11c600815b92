// Where the test program finds the repository, the build directory and what the build made.
// The paths are compiled into test_paths.cpp alone (tests/meson.build gives it them): the other
// test files do not depend on where the repository is checked out, so a compiler cache (.ci/setup)
// serves them in every clone. Pointers to literals, set before any other test code runs.
#pragma once

namespace attn::test::paths {

extern const char* const source_root;         // the repository
extern const char* const build_root;          // the build directory (attnlab is in it)
extern const char* const golden_dir;          // tests/golden
extern const char* const example_plugin;      // the built example plugin cosine (plugins/examples)
extern const char* const example_plugin_dir;  // the built example plugins
extern const char* const bad_plugin_dir;      // the built plugins that misbehave (tests/bad_plugins)
extern const char* const bad_plugin_src;      // their sources
extern const char* const nan_fill;            // the preload that fills fresh heap blocks with NaN (tools/nan_fill.cpp)

}  // namespace attn::test::paths
