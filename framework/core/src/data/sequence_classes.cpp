#include "sequence_classes.hpp"

#include <algorithm>
#include <array>

namespace attn {
namespace {

constexpr int first_digit = 3;  // the id of '0' (after <pad>, <bos>, <eos>)

// Digit strings as token ids [N, max_len] padded with <pad>, and their lengths.
class TokenSets final : public VectorSets {
 public:
  TokenSets(IntTensor ids, IntTensor lens, Vocab vocab) : ids_(std::move(ids)), lens_(std::move(lens)), vocab_(std::move(vocab)) {}
  std::size_t size() const override { return lens_.size(); }
  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    VectorBatch b;
    b.tokens = take_rows(ids_, rows);
    b.lens = take_rows(lens_, rows);
    return b;
  }
  std::string describe(std::size_t row) const override {
    std::string out;
    for (int t = 0; t < lens_(row); ++t) out += vocab_.token(ids_(row, static_cast<std::size_t>(t)));
    return out;
  }

 private:
  IntTensor ids_, lens_;
  Vocab vocab_;
};

int label_of(const std::string& task, const std::vector<int>& digits) {
  if (task == "sorted") return std::is_sorted(digits.begin(), digits.end()) ? 1 : 0;
  std::array<int, 10> count{};
  for (int d : digits) ++count[static_cast<std::size_t>(d - first_digit)];
  return static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
}

VectorSplit draw(const DigitClassification& s, std::size_t n, const Vocab& vocab, Rng& rng) {
  std::vector<std::vector<int>> strings(n);
  std::vector<int> labels(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int>& digits = strings[i];
    digits.resize(s.min_len + rng.below(s.max_len - s.min_len + 1));
    for (int& d : digits) d = first_digit + static_cast<int>(rng.below(10));
    if (s.task == "sorted" && rng.below(2) == 0) std::sort(digits.begin(), digits.end());
    labels[i] = label_of(s.task, digits);
  }
  return token_split(vocab, strings, s.max_len, labels);
}

}  // namespace

VectorSplit token_split(const Vocab& vocab, const std::vector<std::vector<int>>& sequences, std::size_t max_len,
                        const std::vector<int>& labels) {
  const std::size_t n = sequences.size();
  IntTensor ids = xt::zeros<int>({n, max_len}), lens = IntTensor::from_shape({n});
  VectorSplit split;
  split.labels = IntTensor::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t len = std::min(max_len, sequences[i].size());
    std::copy_n(sequences[i].begin(), len, ids.data() + i * max_len);
    lens(i) = static_cast<int>(len);
    split.labels(i) = labels[i];
  }
  split.sets = std::make_shared<TokenSets>(std::move(ids), std::move(lens), vocab);
  return split;
}

bool is_classification_task(const std::string& task) { return task == "sorted" || task == "majority"; }

VectorData digit_classification(const DigitClassification& s, Rng& rng, Rng& probe_rng) {
  VectorData d;
  d.kind = InputKind::tokens;
  d.max_len = s.max_len;
  std::vector<std::string> tokens = {"<pad>", "<bos>", "<eos>"};
  for (char c = '0'; c <= '9'; ++c) tokens.emplace_back(1, c);
  d.vocab = Vocab(tokens);
  if (s.task == "sorted") d.classes = {"no", "yes"};
  else for (char c = '0'; c <= '9'; ++c) d.classes.emplace_back(1, c);
  d.train = draw(s, s.num_train, d.vocab, rng);
  d.valid = draw(s, s.num_valid, d.vocab, rng);
  d.probe = draw(s, probe_size, d.vocab, probe_rng);
  return d;
}

}  // namespace attn
