#include "attnlab/data/dataset.hpp"

#include <algorithm>
#include <filesystem>

namespace attn {

std::string resolve_data_path(const std::string& path, const std::string& base_dir) {
  if (path.empty() || std::filesystem::path(path).is_absolute() || base_dir.empty()) return path;
  const auto candidate = std::filesystem::path(base_dir) / path;
  return std::filesystem::exists(candidate) ? candidate.string() : path;
}

int pad_sequence(const std::vector<int>& ids, std::size_t num_steps, int* row) {
  std::vector<int> line = ids;
  line.push_back(Vocab::eos);
  if (line.size() > num_steps) line.resize(num_steps);
  std::fill(row, row + num_steps, Vocab::pad);
  std::copy(line.begin(), line.end(), row);
  return static_cast<int>(line.size());
}

const SequenceSplit& probe_split(const SequenceData& data) {
  return data.probe.size() ? data.probe : data.valid.size() ? data.valid : data.train;
}

std::size_t probe_examples(const Data& data) {
  const auto* seq = std::get_if<SequenceData>(&data);
  return seq ? probe_split(*seq).size() : 1;
}

SequenceSplit make_split(const std::vector<std::vector<int>>& src, const std::vector<std::vector<int>>& tgt,
                         std::size_t num_steps) {
  const std::size_t n = src.size();
  SequenceSplit s;
  s.src = IntTensor::from_shape({n, num_steps});
  s.tgt = IntTensor::from_shape({n, num_steps});
  s.src_lens = IntTensor::from_shape({n});
  s.tgt_lens = IntTensor::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    s.src_lens(i) = pad_sequence(src[i], num_steps, s.src.data() + i * num_steps);
    s.tgt_lens(i) = pad_sequence(tgt[i], num_steps, s.tgt.data() + i * num_steps);
  }
  return s;
}

}  // namespace attn
