// Inputs that are sets of vectors, not token sequences (the course notes: a sentence's words,
// speech frames, a graph's nodes, an image's pixels or patches). A split hands a model batches
//   VectorBatch { vectors [B, n, d] or tokens [B, n];  lens [B];  structure }
// where the structure is what the input has besides its vectors:
//   grid      an image: the n = rows * cols vectors are its pixels in row-major order
//   adjacency a graph: [B, n, n], 1 where vector i may attend to vector j
//   times     frames: [B, n], each vector's time in seconds
// and one label per set (classification). The same encoder, scoring functions, modes,
// normalizers and recorded maps serve every kind: a model sees vectors and valid lengths.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attnlab/data/vocab.hpp"
#include "attnlab/tensor.hpp"

namespace attn {

// What the vectors of a set are, for the models that need to know (ViT needs a grid) and for
// the pictures (an image is drawn on its grid, a graph as a graph).
enum class InputKind { tokens, image, graph, frames };
const char* to_string(InputKind kind);

struct VectorBatch {
  Tensor vectors;       // [B, n, d] features (empty for token inputs)
  IntTensor tokens;     // [B, n] token ids (token inputs only)
  IntTensor lens;       // [B] valid lengths: vectors at or past lens[b] are padding
  IntTensor adjacency;  // [B, n, n] (graphs), else empty
  Tensor times;         // [B, n] seconds (frames), else empty
  std::size_t size() const { return lens.size(); }
};

// One split's sets, produced a batch at a time (an image set resized to 96x96 would not fit in
// memory whole; a batch does).
class VectorSets {
 public:
  virtual ~VectorSets() = default;
  virtual std::size_t size() const = 0;
  // Sets `rows` (indices into the split, in that order).
  virtual VectorBatch batch(const std::vector<std::size_t>& rows) const = 0;
  // A short readable description of set `row` (its tokens; "image 17"), for recorded maps.
  virtual std::string describe(std::size_t row) const = 0;
};

struct VectorSplit {
  std::shared_ptr<const VectorSets> sets;
  IntTensor labels;  // [N]: the class of each set, in [0, classes)
  std::size_t size() const { return sets ? sets->size() : 0; }
};

struct VectorData {
  InputKind kind = InputKind::tokens;
  std::size_t dim = 0;       // features per vector (0 for tokens)
  std::size_t max_len = 0;   // vectors per set at most
  std::size_t grid_rows = 0, grid_cols = 0;  // images: n = rows * cols
  Vocab vocab;               // token inputs
  std::vector<std::string> classes;
  // Per-vector labels that make one answer per input (a task's target laid out for a
  // decoder-only model): a classifier reports exact match, every labelled vector right, too.
  bool labels_answer = false;
  VectorSplit train, valid;
  VectorSplit probe;  // the examples a run records and measures (empty: valid serves)
};

// A split of token sets: `sequences` (token ids, each at most max_len long) with their labels
// (-1 where unknown). Token datasets and typed inputs (`attnlab predict "3 1 4"`) make them.
VectorSplit token_split(const Vocab& vocab, const std::vector<std::vector<int>>& sequences, std::size_t max_len,
                        const std::vector<int>& labels);

// The split the probe examples come from: probe, else valid, else train.
const VectorSplit& probe_split(const VectorData& data);

}  // namespace attn
