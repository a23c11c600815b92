#include "lab/builtins.hpp"
#include "test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <cmath>
#include <stdexcept>

namespace attn::test {

const Registries& builtins() {
  static const Registries registries = [] {
    Registries r;
    register_builtins(r);
    return r;
  }();
  return registries;
}

Tensor randn(const Shape& shape, Rng& rng) {
  Tensor t = Tensor::from_shape(shape);
  for (float& v : t) v = rng.normal();
  return t;
}

Tensor randn(const Shape& shape, std::uint64_t seed, float min_abs) {
  Rng rng(seed);
  Tensor t = randn(shape, rng);
  for (float& v : t)
    if (std::abs(v) < min_abs) v = v < 0 ? v - min_abs : v + min_abs;
  return t;
}

std::shared_ptr<Model> built_model(const std::string& name, const Data& data, ParamStore& store,
                                   const std::vector<std::pair<std::string, std::string>>& options, std::uint64_t seed) {
  Rng rng(seed);
  Options o;
  for (const auto& [key, v] : options) o.set(key, v);
  return builtins().models.create(name, ModelArgs{builtins(), ParamScope(store, rng), o, data});
}

Data reverse_task(std::size_t num_train) {
  Options o;
  o.set("task", "reverse");
  o.set("num_train", std::to_string(num_train));
  o.set("num_valid", "50");
  o.set("num_steps", "7");
  o.set("max_len", "5");
  Rng rng(4);
  return builtins().datasets.create("sequence_task", DatasetArgs{o, ""})->load(rng);
}

CommandOutput command_output(const std::string& command) {
  CommandOutput out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + command);
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.text.append(buf, n);
  const int status = pclose(p);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TempDir::TempDir(const std::string& prefix) {
  std::string name = "/tmp/" + prefix + "-XXXXXX";
  if (!mkdtemp(name.data())) throw std::runtime_error("cannot create a directory " + name);
  path = name;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

std::vector<double> reference_product(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, float alpha,
                                      const Tensor& a, const Tensor& b, float beta, const std::vector<float>& c) {
  std::vector<double> out(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double total = 0.0;
      for (std::size_t l = 0; l < k; ++l)
        total += static_cast<double>(ta ? a.data()[l * m + i] : a.data()[i * k + l]) *
                 static_cast<double>(tb ? b.data()[j * k + l] : b.data()[l * n + j]);
      out[i * n + j] = alpha * total + (beta == 0.0f ? 0.0 : beta * static_cast<double>(c[i * n + j]));
    }
  return out;
}

}  // namespace attn::test
