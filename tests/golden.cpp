#include "golden.hpp"
#include "test_paths.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <xtensor/xadapt.hpp>

namespace attn::test {

Golden::Golden(const std::string& file_name) : path_(std::string(attn::test::paths::golden_dir) + "/" + file_name) {
  std::ifstream in(path_);
  if (!in) throw std::runtime_error(path_ + ": cannot open golden file (regenerate with tests/golden/make_golden.py)");
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, colon;
    std::size_t ndim = 0;
    fields >> name >> ndim;
    Shape shape(ndim);
    for (auto& d : shape) fields >> d;
    fields >> colon;
    if (!fields || colon != ":") throw std::runtime_error(path_ + ":" + std::to_string(line_no) + ": malformed tensor line");
    std::vector<float> values;
    for (std::string v; fields >> v;) {  // numbers, "nan" included
      char* end = nullptr;
      values.push_back(std::strtof(v.c_str(), &end));
      if (*end) throw std::runtime_error(path_ + ":" + std::to_string(line_no) + ": not a number: " + v);
    }
    if (values.size() != num_elements(shape))
      throw std::runtime_error(path_ + ":" + std::to_string(line_no) + ": " + name + " has " +
                               std::to_string(values.size()) + " values for shape " + shape_str(shape));
    tensors_[name] = xt::adapt(values, shape);
  }
}

const Tensor& Golden::operator[](const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::runtime_error(path_ + ": no tensor '" + name + "'");
  return it->second;
}

IntTensor Golden::ints(const std::string& name) const { return xt::cast<int>((*this)[name]); }

double max_scaled_error(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return std::numeric_limits<double>::infinity();
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a.data()[i]) - b.data()[i]) / std::max(1.0, std::abs(double(b.data()[i]))));
  return worst;
}

}  // namespace attn::test
