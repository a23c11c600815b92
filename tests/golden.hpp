// Reader for the PyTorch golden files written by tests/golden/make_golden.py.
#pragma once

#include <map>
#include <string>

#include "attnlab/tensor.hpp"

namespace attn::test {

class Golden {
 public:
  explicit Golden(const std::string& file_name);  // a file in tests/golden/
  const Tensor& operator[](const std::string& name) const;
  IntTensor ints(const std::string& name) const;

 private:
  std::string path_;
  std::map<std::string, Tensor> tensors_;
};

// Largest |a - b| / max(1, |b|) over all entries (inf when shapes differ).
double max_scaled_error(const Tensor& a, const Tensor& b);

}  // namespace attn::test
