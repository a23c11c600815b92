#include "decoder_layout.hpp"

namespace attn {
namespace {

// The split's examples as inputs [N, width] and labels [N, width] (-1 where nothing is asked).
VectorSplit decoder_split(const SequenceSplit& s, int separator, std::size_t width, const Vocab& vocab) {
  const std::size_t n = s.size(), steps = s.src.dimension() == 2 ? s.src.shape()[1] : 0;
  std::vector<std::vector<int>> inputs(n);
  IntTensor labels = IntTensor::from_shape({n, width});
  labels.fill(-1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t source = static_cast<std::size_t>(s.src_lens(i)) - 1, target = static_cast<std::size_t>(s.tgt_lens(i));  // (without / with <eos>)
    std::vector<int> seq(s.src.data() + i * steps, s.src.data() + i * steps + source);
    seq.push_back(separator);
    seq.insert(seq.end(), s.tgt.data() + i * steps, s.tgt.data() + i * steps + target);
    inputs[i].assign(seq.begin(), seq.end() - 1);
    for (std::size_t j = source; j + 1 < seq.size(); ++j) labels(i, j) = seq[j + 1];
  }
  VectorSplit split = token_split(vocab, inputs, width, std::vector<int>(n, -1));
  split.labels = std::move(labels);
  return split;
}

}  // namespace

VectorData decoder_layout(const SequenceData& data) {
  std::vector<std::string> tokens = data.tgt_vocab.tokens();
  tokens.emplace_back("=");
  VectorData d;
  d.kind = InputKind::tokens;
  d.vocab = Vocab(tokens);
  d.classes = tokens;
  d.labels_answer = true;
  d.max_len = 2 * data.num_steps - 1;  // a source and a target of num_steps each (with <eos>), the separator, less the last token
  const int separator = static_cast<int>(tokens.size() - 1);
  d.train = decoder_split(data.train, separator, d.max_len, d.vocab);
  d.valid = decoder_split(data.valid, separator, d.max_len, d.vocab);
  d.probe = decoder_split(data.probe, separator, d.max_len, d.vocab);
  return d;
}

}  // namespace attn
