// Datasets: what a model trains and is evaluated on. Three families:
//   RegressionData   1-D inputs and targets (Nadaraya-Watson regression)
//   SequenceData     pairs of token sequences padded to num_steps, with valid lengths
//   VectorData       sets of vectors (tokens, an image's pixels, a graph's nodes, speech
//                    frames) with one label each (vector_sets.hpp)
// A DatasetSource is a registered plugin kind: constructed from its options (so a spec is
// validated without loading anything), then load() generates or reads the data.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "attnlab/data/vector_sets.hpp"
#include "attnlab/data/vocab.hpp"
#include "attnlab/footprint.hpp"
#include "attnlab/options.hpp"
#include "attnlab/rng.hpp"
#include "attnlab/tensor.hpp"

namespace attn {

struct RegressionData {
  Tensor x_train, y_train;  // [n_train]
  Tensor x_test, y_test;    // [n_test]; y_test is the noise-free truth f(x_test)
};

struct SequenceSplit {
  IntTensor src, src_lens;  // [N, num_steps], [N]: tokens + <eos>, padded with <pad>
  // Sources that are vectors (speech frames), not tokens: set i is source i, src_lens holds
  // their lengths and src is empty.
  std::shared_ptr<const VectorSets> src_vectors;
  IntTensor tgt, tgt_lens;  // [N, num_steps], [N]
  // [N, num_steps]: the source position target position t copies (its <eos> the source's
  // <eos>), -1 past the target; empty when the task has no known alignment.
  IntTensor alignment;
  // (a default-constructed tensor is a scalar of size 1: an unset split has no axis)
  std::size_t size() const { return src_lens.dimension() == 1 ? src_lens.shape()[0] : 0; }
};

// The probe set: the examples whose attention a run records and measures, the same for every
// run seed of a sweep. Synthetic tasks draw probe_size examples from a stream of their own;
// data read from a file (its evaluation split fixed by line numbers) uses that split.
constexpr std::size_t probe_size = 32;
// The seed of the synthetic tasks' probe stream ("probe"): the same probe set for every run seed.
constexpr std::uint64_t probe_seed = 0x70726f6265;

struct SequenceData {
  Vocab src_vocab, tgt_vocab;  // src_vocab: the reserved tokens only when sources are vectors
  std::size_t src_dim = 0;     // features per source vector; 0: sources are tokens
  std::size_t num_steps = 0;
  SequenceSplit train, valid;
  SequenceSplit probe;  // probe_size examples (fewer if the data has fewer); empty: the evaluation split serves
};

using Data = std::variant<RegressionData, SequenceData, VectorData>;

// The split the probe examples come from: SequenceData::probe when the data has one, else the
// evaluation split (valid, or train when there is no valid).
const SequenceSplit& probe_split(const SequenceData& data);
// How many examples record.attention may name: the probe split's size (1 for regression data:
// the test grid is one example).
std::size_t probe_examples(const Data& data);

struct DatasetArgs {
  const Options& options;
  std::string base_dir;  // relative file paths are resolved against it (the spec's directory)
};

class DatasetSource {
 public:
  virtual ~DatasetSource() = default;
  // Generate (from `rng`) or read the data.
  virtual Data load(Rng& rng) const = 0;
  // The memory load() will take, estimated from the options alone (nothing is read or
  // generated), each part at the option responsible for it: a run whose data cannot fit is
  // refused before loading (footprint.hpp). Empty: no estimate.
  virtual Footprint footprint() const { return {}; }
  // The options under which this dataset's inputs have length `length` (a text's context, a
  // task's source length), everything else as `options`: evaluation at other lengths (spec
  // key evaluation.lengths) loads the dataset again with them. nullopt: its inputs have no
  // length to vary.
  virtual std::optional<Options> at_length(const Options& options, std::size_t length) const {
    return (void)options, (void)length, std::nullopt;
  }
};

// A dataset file's path: relative paths are taken from `base_dir` (the spec's directory) when
// the file is there, else from the current directory.
std::string resolve_data_path(const std::string& path, const std::string& base_dir);

// Rows `rows` (along axis 0) of a split's tensor, in that order: a batch.
IntTensor take_rows(const IntTensor& t, const std::vector<std::size_t>& rows);
// Sources `rows` of a split, in that order: token ids [B, num_steps] or vectors [B, n, d] (with
// their times, for frames), and their valid lengths.
VectorBatch source_rows(const SequenceSplit& split, const std::vector<std::size_t>& rows);
// Sentences of token ids as a batch of sources: each + <eos>, truncated/padded to num_steps.
VectorBatch token_sources(const std::vector<std::vector<int>>& sentences, std::size_t num_steps);

// d2l's truncate_pad of `ids` + <eos> to num_steps; returns the valid length.
int pad_sequence(const std::vector<int>& ids, std::size_t num_steps, int* row);
// Builds a split from token-id sequences (each gets <eos>, then truncate/pad).
SequenceSplit make_split(const std::vector<std::vector<int>>& src, const std::vector<std::vector<int>>& tgt,
                         std::size_t num_steps);

}  // namespace attn
