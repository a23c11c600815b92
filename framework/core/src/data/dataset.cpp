#include "attnlab/data/dataset.hpp"

#include <stdexcept>

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

IntTensor take_rows(const IntTensor& t, const std::vector<std::size_t>& rows) {
  Shape shape(t.shape().begin(), t.shape().end());
  const std::size_t per = t.size() / std::max<std::size_t>(shape[0], 1);
  shape[0] = rows.size();
  IntTensor out = IntTensor::from_shape(shape);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] >= t.shape()[0])
      throw std::out_of_range("take_rows: row " + std::to_string(rows[i]) + " of " + std::to_string(t.shape()[0]));
    std::copy_n(t.data() + rows[i] * per, per, out.data() + i * per);
  }
  return out;
}

VectorBatch source_rows(const SequenceSplit& split, const std::vector<std::size_t>& rows) {
  if (split.src_vectors) return split.src_vectors->batch(rows);
  VectorBatch b;
  b.tokens = take_rows(split.src, rows);
  b.lens = take_rows(split.src_lens, rows);
  return b;
}

VectorBatch token_sources(const std::vector<std::vector<int>>& sentences, std::size_t num_steps) {
  VectorBatch b;
  b.tokens = IntTensor::from_shape({sentences.size(), num_steps});
  b.lens = IntTensor::from_shape({sentences.size()});
  for (std::size_t i = 0; i < sentences.size(); ++i) b.lens(i) = pad_sequence(sentences[i], num_steps, b.tokens.data() + i * num_steps);
  return b;
}

const char* to_string(InputKind kind) {
  switch (kind) {
    case InputKind::tokens: return "tokens";
    case InputKind::image: return "image";
    case InputKind::graph: return "graph";
    case InputKind::frames: return "frames";
  }
  return "?";
}

const VectorSplit& probe_split(const VectorData& data) {
  return data.probe.size() ? data.probe : data.valid.size() ? data.valid : data.train;
}

const SequenceSplit& probe_split(const SequenceData& data) {
  return data.probe.size() ? data.probe : data.valid.size() ? data.valid : data.train;
}

std::size_t probe_examples(const Data& data) {
  if (const auto* seq = std::get_if<SequenceData>(&data)) return probe_split(*seq).size();
  if (const auto* sets = std::get_if<VectorData>(&data)) return probe_split(*sets).size();
  return 1;
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
