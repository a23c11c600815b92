// Dataset `sequence_task`: synthetic sequence-to-sequence tasks over digits whose attention
// maps are easy to read. Vocabulary: <pad> 0, <bos> 1, <eos> 2, '0'..'9' = 3..12 (and '+').
//   copy:    target = source                      (attention: the diagonal)
//   reverse: target = source reversed             (attention: the anti-diagonal)
//   sort:    target = source sorted               (attention: jumps to each digit in order)
//   add:     source "a+b", target the digits of a + b
// and classification tasks, one label per string (sorted, majority: sequence_classes.hpp).
// Source lengths are uniform in [min_len, max_len] (for add: digits per operand, up to
// max_len / 2). Both sides get <eos>, then are truncated/padded to num_steps.
// Option layout: encoder_decoder (the default: sources and targets, for seq2seq, transformer,
// encoder_tagger) or decoder (one sequence "source = target", for language_model:
// decoder_layout.hpp).
// The probe set (probe_size examples) is drawn from a stream of its own, the same for every run
// seed, with the gold alignment of copy, reverse and sort.
#include <algorithm>
#include <stdexcept>

#include "attnlab/data/dataset.hpp"
#include "attnlab/registry.hpp"
#include "decoder_layout.hpp"
#include "sequence_classes.hpp"

namespace attn {
namespace {

class SequenceTask final : public DatasetSource {
 public:
  explicit SequenceTask(const DatasetArgs& a)
      : task_(a.options.get<std::string>("task", "reverse")),
        min_len_(a.options.get<std::size_t>("min_len", 3, 1, 1000)),
        max_len_(a.options.get<std::size_t>("max_len", 8, 1, 1000)),
        num_train_(a.options.get<std::size_t>("num_train", 2000, 1, 10000000)),
        num_valid_(a.options.get<std::size_t>("num_valid", 200, 0, 10000000)),
        num_steps_(a.options.get<std::size_t>("num_steps", 10, 2, 1000)),
        decoder_(a.options.get<std::string>("layout", "encoder_decoder") == "decoder"),
        train_where_(first_written(a.options, {"num_train", "num_steps", "max_len"})),
        valid_where_(first_written(a.options, {"num_valid", "num_steps", "max_len"})) {
    if (task_ != "copy" && task_ != "reverse" && task_ != "sort" && task_ != "add" && !is_classification_task(task_))
      throw SpecError(a.options.where("task"), "option 'task' must be one of copy, reverse, sort, add (sequence targets) "
                                               "or sorted, majority (one label per string); got '" + task_ + "'");
    if (is_classification_task(task_) && a.options.has("num_steps"))
      throw SpecError(a.options.where("num_steps"), "option 'num_steps' pads sequence targets; task '" + task_ +
                                                        "' gives one label per string (its strings are max_len long at most)");
    if (const std::string layout = a.options.get<std::string>("layout", "encoder_decoder"); layout != "encoder_decoder" && layout != "decoder")
      throw SpecError(a.options.where("layout"), "option 'layout' must be 'encoder_decoder' (sources and targets) or 'decoder' "
                                                 "(one sequence 'source = target' for language_model); got '" + layout + "'");
    if (decoder_ && num_steps_ < max_len_ + (task_ == "add" ? 2 : 1))
      throw SpecError(a.options.where(a.options.has("num_steps") ? "num_steps" : "layout"),
                      "option 'layout: decoder' needs whole sources and targets: num_steps (" + std::to_string(num_steps_) +
                          ") must hold the longest string and <eos>, " + std::to_string(max_len_ + (task_ == "add" ? 2 : 1)) +
                          " or more");
    if (decoder_ && is_classification_task(task_))
      throw SpecError(a.options.where("layout"), "option 'layout: decoder' lays out a source and its target sequence; task '" + task_ +
                                                     "' gives one label per string");
    if (min_len_ > max_len_)
      throw SpecError(a.options.where("min_len"), "option 'min_len' (" + std::to_string(min_len_) +
                                                        ") must not exceed 'max_len' (" + std::to_string(max_len_) + ")");
  }

  // Strings of exactly `length` digits (for add: operands of length / 2 digits each), padded to
  // num_steps or, if longer, to the string and <eos> (for add: "a+b" and <eos>, length + 2).
  std::optional<Options> at_length(const Options& options, std::size_t length) const override {
    Options o = options;
    o.set("min_len", std::to_string(task_ == "add" ? std::max<std::size_t>(length / 2, 1) : length));
    o.set("max_len", std::to_string(length));
    if (!is_classification_task(task_)) o.set("num_steps", std::to_string(std::max(num_steps_, length + (task_ == "add" ? 2 : 1))));
    return o;
  }

  Data load(Rng& rng) const override {
    if (is_classification_task(task_)) {
      Rng probe_rng(probe_seed);
      return digit_classification({task_, min_len_, max_len_, num_train_, num_valid_}, rng, probe_rng);
    }
    std::vector<std::string> tokens = {"<pad>", "<bos>", "<eos>"};
    for (char c = '0'; c <= '9'; ++c) tokens.emplace_back(1, c);
    if (task_ == "add") tokens.emplace_back("+");
    SequenceData d;
    d.src_vocab = d.tgt_vocab = Vocab(tokens);
    d.num_steps = num_steps_;
    d.train = split(num_train_, rng);
    d.valid = split(num_valid_, rng);
    Rng probe_rng(probe_seed);
    d.probe = split(probe_size, probe_rng);
    if (task_ != "add") d.probe.alignment = alignment(d.probe);
    if (decoder_) return decoder_layout(d);
    return d;
  }

  // Per example: source and target padded to num_steps (ints), and while generating, both as
  // lists of up to max_len digits.
  Footprint footprint() const override {
    const double per_example = 2.0 * (sizeof(int) * num_steps_ + sizeof(std::vector<int>) + sizeof(int) * max_len_);
    const auto part = [&](const char* name, std::size_t n, const std::string& where) {
      return MemoryUse{std::string("the ") + name + " split: " + std::to_string(n) + " examples of " + std::to_string(num_steps_) +
                           " steps", per_example * static_cast<double>(n), where};
    };
    return {part("training", num_train_, train_where_), part("validation", num_valid_, valid_where_)};
  }

 private:
  std::vector<int> digits(std::size_t n, Rng& rng) const {
    std::vector<int> out(n);
    for (int& v : out) v = 3 + static_cast<int>(rng.below(10));
    return out;
  }

  SequenceSplit split(std::size_t n, Rng& rng) const {
    std::vector<std::vector<int>> src(n), tgt(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (task_ == "add") {
        const std::size_t hi = std::max<std::size_t>(1, max_len_ / 2), lo = std::min(min_len_, hi);
        auto number = [&] {
          std::vector<int> d = digits(lo + rng.below(hi - lo + 1), rng);
          if (d.size() > 1 && d[0] == 3) d[0] = 4;  // no leading zero
          return d;
        };
        const std::vector<int> a = number(), b = number();
        src[i] = a;
        src[i].push_back(13);  // '+'
        src[i].insert(src[i].end(), b.begin(), b.end());
        auto value = [](const std::vector<int>& ds) {
          unsigned long long v = 0;
          for (int x : ds) v = v * 10 + static_cast<unsigned long long>(x - 3);
          return v;
        };
        for (char c : std::to_string(value(a) + value(b))) tgt[i].push_back(3 + (c - '0'));
      } else {
        src[i] = digits(min_len_ + rng.below(max_len_ - min_len_ + 1), rng);
        tgt[i] = src[i];
        if (task_ == "reverse") std::reverse(tgt[i].begin(), tgt[i].end());
        if (task_ == "sort") std::sort(tgt[i].begin(), tgt[i].end());
      }
    }
    return make_split(src, tgt, num_steps_);
  }

  // Where each target position's token comes from in the source (its <eos> from the source's).
  IntTensor alignment(const SequenceSplit& split) const {
    IntTensor out = IntTensor::from_shape({split.size(), num_steps_});
    std::fill(out.begin(), out.end(), -1);
    for (std::size_t i = 0; i < split.size(); ++i) {
      const int* src = split.src.data() + i * num_steps_;
      const int n = split.src_lens(i) - 1;  // digits before <eos>
      std::vector<int> order(static_cast<std::size_t>(n));
      for (int t = 0; t < n; ++t) order[static_cast<std::size_t>(t)] = task_ == "reverse" ? n - 1 - t : t;
      if (task_ == "sort") std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return src[a] < src[b]; });
      for (int t = 0; t < std::min<int>(split.tgt_lens(i), n); ++t) out(i, static_cast<std::size_t>(t)) = order[static_cast<std::size_t>(t)];
      if (split.tgt_lens(i) > n) out(i, static_cast<std::size_t>(n)) = n;  // <eos> -> <eos>
    }
    return out;
  }

  std::string task_;
  std::size_t min_len_, max_len_, num_train_, num_valid_, num_steps_;
  bool decoder_;
  std::string train_where_, valid_where_;
};

}  // namespace

void register_dataset_sequence_task(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<SequenceTask>("sequence_task", "synthetic digit tasks: copy, reverse, sort, add; sorted, majority (classification)");
}

}  // namespace attn
