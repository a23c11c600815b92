// Helpers shared by the test files.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "attnlab/registries.hpp"
#include "test_paths.hpp"

namespace attn::test {

// `value` with `decimals` digits after the point, as attnlab's tables print it (0.9300).
inline std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// The whole text of a file ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The repository, and attnlab in the build directory.
inline const std::string source_root = paths::source_root;
inline const std::string attnlab_exe = std::string(paths::build_root) + "/attnlab";

// Registries holding the built-in plugins (one instance for the whole test program).
const Registries& builtins();
// N(0, 1) entries; with min_abs > 0 entries are pushed away from 0 (kinks, poles).
Tensor randn(const Shape& shape, std::uint64_t seed, float min_abs = 0.0f);

// The reverse task (digit strings of length 1..5, num_steps 7, 50 validation pairs), drawn with seed 4.
Data reverse_task(std::size_t num_train);

// A built-in model of `name` over `data` with `options` (key, value), its parameters drawn with
// `seed` into `store`.
std::shared_ptr<Model> built_model(const std::string& name, const Data& data, ParamStore& store,
                                   const std::vector<std::pair<std::string, std::string>>& options, std::uint64_t seed);

// What a shell command prints on standard output, and its exit status.
struct CommandOutput {
  std::string text;
  int status = -1;
};
CommandOutput command_output(const std::string& command);
Tensor randn(const Shape& shape, Rng& rng);

// C = alpha op(A) op(B) + beta C by definition, in double precision (C read only when beta is
// not 0): the reference for gemm() on any shape.
std::vector<double> reference_product(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, float alpha,
                                      const Tensor& a, const Tensor& b, float beta, const std::vector<float>& c);

// A fresh directory /tmp/<prefix>-XXXXXX, removed with its contents at the end of the scope.
struct TempDir {
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& file) const { return (path / file).string(); }
  std::filesystem::path path;
};

}  // namespace attn::test
