// Dataset `repeated_patterns`: sequences of a random pattern repeated, for studying in-context
// copying and induction heads (d2l-neu, "What attention computes"; Olsson et al. 2022). Each
// sequence of `length` tokens draws a period L uniformly from [min_period, max_period] and L
// tokens uniformly from a vocabulary of `vocab` tokens t0 .. t<vocab-1>, then tiles them:
//   x_i = pattern[i mod L],   i = 0 .. length - 1
// A model reads x_0 .. x_{length-2} and predicts each next token x_{i+1}, as a language model
// does. The first copy is unpredictable by design; every later token is predictable by
// looking up what followed its previous occurrence. Training labels every position; the
// validation split labels the positions whose next token lies in a later copy (i + 1 >= L),
// with option measure: later_copies (default), or every position (measure: all), so its
// valid_loss and valid_accuracy are the later-copy loss and accuracy.
// A fresh pattern for every sequence: with num_train = steps x batch size, no batch repeats.
// The probe set (probe_size sequences) comes from a stream of its own, the same for every seed.
// Options: vocab, length, min_period, max_period, num_train, num_valid, measure.
#include "attnlab/data/dataset.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/footprint.hpp"
#include "attnlab/registry.hpp"
#include "attnlab/data/vector_sets.hpp"

namespace attn {
namespace {

constexpr int first_token = 3;  // after <pad>, <bos>, <eos>

class RepeatedPatterns final : public DatasetSource {
 public:
  explicit RepeatedPatterns(const DatasetArgs& a)
      : vocab_(a.options.get<std::size_t>("vocab", 64, 2, 100000)),
        length_(a.options.get<std::size_t>("length", 64, 3, 1 << 16)),
        min_period_(a.options.get<std::size_t>("min_period", 16, 1, 1 << 16)),
        max_period_(a.options.get<std::size_t>("max_period", 32, 1, 1 << 16)),
        num_train_(a.options.get<std::size_t>("num_train", 256000, 1, 100000000)),
        num_valid_(a.options.get<std::size_t>("num_valid", 256, 1, 100000000)),
        measure_(a.options.get<std::string>("measure", "later_copies")),
        sizes_where_(first_written(a.options, {"num_train", "num_valid", "length"})) {
    if (min_period_ > max_period_)
      throw SpecError(a.options.where("min_period"), "option 'min_period' (" + std::to_string(min_period_) +
                                                         ") must be at most 'max_period' (" + std::to_string(max_period_) + ")");
    if (max_period_ >= length_)
      throw SpecError(a.options.where("max_period"), "option 'max_period' (" + std::to_string(max_period_) + ") must be below 'length' (" +
                                                         std::to_string(length_) + "): a sequence must hold a second copy of its pattern");
    if (measure_ != "later_copies" && measure_ != "all")
      throw SpecError(a.options.where("measure"), "option 'measure' must be 'later_copies' (the validation split labels the "
                                                  "predictable positions) or 'all'; got '" + measure_ + "'");
  }

  // Tokens and labels, two ints per position of every sequence.
  Footprint footprint() const override {
    const double per_sequence = 2.0 * sizeof(int) * static_cast<double>(length_);
    return {MemoryUse{std::to_string(num_train_ + num_valid_) + " sequences of " + std::to_string(length_) + " tokens",
                      per_sequence * static_cast<double>(num_train_ + num_valid_ + probe_size), sizes_where_}};
  }

  // Sequences of `length` tokens, the periods as they are (a longer sequence holds more copies).
  std::optional<Options> at_length(const Options& options, std::size_t length) const override {
    Options o = options;
    o.set("length", std::to_string(length));
    return o;
  }

  Data load(Rng& rng) const override {
    VectorData d;
    d.kind = InputKind::tokens;
    d.max_len = length_ - 1;
    std::vector<std::string> tokens = {"<pad>", "<bos>", "<eos>"};
    for (std::size_t t = 0; t < vocab_; ++t) tokens.push_back("t" + std::to_string(t));
    d.vocab = Vocab(tokens);
    d.classes = tokens;
    d.train = draw(num_train_, false, d.vocab, rng);
    d.valid = draw(num_valid_, measure_ == "later_copies", d.vocab, rng);
    Rng probe_rng(probe_seed);
    d.probe = draw(probe_size, measure_ == "later_copies", d.vocab, probe_rng);
    return d;
  }

 private:
  // n sequences: inputs x_0 .. x_{length-2}, labels x_1 .. x_{length-1} (-1 in the first copy
  // when only later copies are measured).
  VectorSplit draw(std::size_t n, bool later_only, const Vocab& vocab, Rng& rng) const {
    const std::size_t steps = length_ - 1;
    std::vector<std::vector<int>> inputs(n);
    IntTensor labels = IntTensor::from_shape({n, steps});
    std::vector<int> pattern;
    for (std::size_t s = 0; s < n; ++s) {
      const std::size_t period = min_period_ + rng.below(max_period_ - min_period_ + 1);
      pattern.resize(period);
      for (int& t : pattern) t = first_token + static_cast<int>(rng.below(vocab_));
      for (std::size_t i = 0; i < steps; ++i) {
        inputs[s].push_back(pattern[i % period]);
        labels(s, i) = later_only && i + 1 < period ? -1 : pattern[(i + 1) % period];
      }
    }
    VectorSplit split = token_split(vocab, inputs, steps, std::vector<int>(n, 0));
    split.labels = std::move(labels);
    return split;
  }

  std::size_t vocab_, length_, min_period_, max_period_, num_train_, num_valid_;
  std::string measure_, sizes_where_;
};

}  // namespace

void register_dataset_repeated_patterns(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<RepeatedPatterns>("repeated_patterns",
                          "random patterns repeated to fill each sequence, next token as label (in-context copying, induction heads)");
}

}  // namespace attn
