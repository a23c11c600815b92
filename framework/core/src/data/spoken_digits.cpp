// Dataset `spoken_digits`: the words "zero" ... "nine" spoken by espeak-ng in 5 voices, 3
// speeds and 3 pitches (datasets/spoken-digits/make_spoken_digits.sh makes the WAV files at
// set-up). Speech reaches a model as a set of vectors: its log-mel frames (log_mel.hpp; 23 ms
// windows every 11.6 ms at 22050 Hz), standardised per mel band with the training frames' mean
// and standard deviation, with each frame's time (VectorBatch::times) and the utterance's
// valid length. One voice is held out for validation (default en-029): the model must
// recognise a voice it never heard.
// The target (option `target`):
//   digit    one label per utterance, the digit (a classifier's input);
//   letters  a sequence: the words spelled, "_" between words ("three one" -> t h r e e _ o n e
//            <eos>), for seq2seq to spell from the frames. With `words: k` above 1 an input is
//            k utterances of one speaker laid end to end (their frames concatenated), the
//            digits drawn at random: num_train sequences from the training voices, num_valid
//            from the held-out one, and the probe set from a stream of its own.
// Options: path (the utterances file), valid_voice, mels, target, words, num_train, num_valid.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "attnlab/data/dataset.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/registry.hpp"
#include "log_mel.hpp"
#include "table_file.hpp"
#include "wav_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> words = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};
constexpr const char* default_path = "datasets/spoken-digits/utterances.txt";
constexpr std::size_t longest_word = 5;  // "three", "seven", "eight"

struct Utterance {
  Tensor frames;        // [T, mels]
  std::string speaker;  // voice, speed and pitch
  int digit = 0;
};
using Utterances = std::vector<Utterance>;

// Sets of frames, each the utterances parts[i] laid end to end.
class SpokenSequences final : public VectorSets {
 public:
  SpokenSequences(std::shared_ptr<const Utterances> utterances, std::vector<std::vector<std::size_t>> parts, double seconds_per_frame)
      : utterances_(std::move(utterances)), parts_(std::move(parts)), seconds_(seconds_per_frame) {}
  std::size_t size() const override { return parts_.size(); }
  std::size_t frames(std::size_t row) const {
    std::size_t n = 0;
    for (std::size_t u : parts_[row]) n += (*utterances_)[u].frames.shape()[0];
    return n;
  }
  const std::vector<std::size_t>& parts(std::size_t row) const { return parts_[row]; }
  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    std::size_t n = 1;
    for (std::size_t r : rows) n = std::max(n, frames(r));
    const std::size_t mels = (*utterances_)[0].frames.shape()[1];
    VectorBatch b;
    b.vectors = xt::zeros<float>({rows.size(), n, mels});
    b.times = Tensor::from_shape({rows.size(), n});
    b.lens = IntTensor::from_shape({rows.size()});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      float* at = b.vectors.data() + i * n * mels;
      for (std::size_t u : parts_[rows[i]]) at = std::copy((*utterances_)[u].frames.begin(), (*utterances_)[u].frames.end(), at);
      b.lens(i) = static_cast<int>(frames(rows[i]));
      for (std::size_t t = 0; t < n; ++t) b.times(i, t) = static_cast<float>(static_cast<double>(t) * seconds_);
    }
    return b;
  }
  // The words of set `row`, in order.
  std::vector<std::string> said(std::size_t row) const {
    std::vector<std::string> out;
    for (std::size_t u : parts_[row]) out.push_back(words[static_cast<std::size_t>((*utterances_)[u].digit)]);
    return out;
  }
  std::string describe(std::size_t row) const override {
    return join_tokens(said(row)) + " (" + (*utterances_)[parts_[row][0]].speaker + ")";
  }

 private:
  std::shared_ptr<const Utterances> utterances_;
  std::vector<std::vector<std::size_t>> parts_;
  double seconds_;
};

// A split's sets as indices into the utterances.
using Parts = std::vector<std::vector<std::size_t>>;

// Every utterance of `from` alone.
Parts each_alone(const std::vector<std::size_t>& from) {
  Parts out;
  for (std::size_t u : from) out.push_back({u});
  return out;
}

// `count` sequences of `k` utterances, each of one speaker drawn at random, its digits at random.
Parts random_sequences(const Utterances& all, const std::vector<std::size_t>& from, std::size_t count, std::size_t k, Rng& rng) {
  std::map<std::string, std::vector<std::size_t>> by_speaker;
  for (std::size_t u : from) by_speaker[all[u].speaker].push_back(u);
  std::vector<const std::vector<std::size_t>*> speakers;
  for (const auto& [name, said] : by_speaker) speakers.push_back(&said);
  Parts out(count);
  for (std::vector<std::size_t>& sequence : out) {
    const std::vector<std::size_t>& said = *speakers[rng.below(speakers.size())];
    for (std::size_t i = 0; i < k; ++i) sequence.push_back(said[rng.below(said.size())]);
  }
  return out;
}

// A word's letters as tokens.
std::vector<std::string> letters_of(const std::string& word) {
  std::vector<std::string> out;
  for (char c : word) out.emplace_back(1, c);
  return out;
}

class SpokenDigits final : public DatasetSource {
 public:
  explicit SpokenDigits(const DatasetArgs& a)
      : path_(resolve_data_path(a.options.get<std::string>("path", default_path), a.base_dir)),
        valid_voice_(a.options.get<std::string>("valid_voice", "en-029")),
        mels_(a.options.get<std::size_t>("mels", 40, 8, 128)),
        target_(a.options.get<std::string>("target", "digit")),
        words_(a.options.get<std::size_t>("words", 1, 1, 8)),
        where_(a.options.where("path")), voice_where_(a.options.where("valid_voice")) {
    if (target_ != "digit" && target_ != "letters")
      throw SpecError(a.options.where("target"), "option 'target' must be 'digit' (one label per utterance) or 'letters' "
                                                   "(the words spelled, a sequence); got '" + target_ + "'");
    if (words_ > 1 && target_ != "letters")
      throw SpecError(a.options.where("words"), "option 'words' (" + std::to_string(words_) + " digits an input) needs 'target: letters': "
                                                  "a sequence of digits has no single digit label");
    for (const char* key : {"num_train", "num_valid"})
      if (words_ == 1 && a.options.has(key))
        throw SpecError(a.options.where(key), std::string("option '") + key + "' is for 'words' above 1; with one word a split is "
                                              "every utterance of its voices");
    num_train_ = a.options.get<std::size_t>("num_train", 1000, 1, 1000000);
    num_valid_ = a.options.get<std::size_t>("num_valid", 200, 1, 1000000);
    if (!a.options.has("path") && !fs::exists(path_))  // (no place of its own: reported at the dataset's name)
      throw std::invalid_argument(std::string("the spoken digits are not made yet: ") + default_path +
                                  " does not exist. Make them with: bash datasets/spoken-digits/make_spoken_digits.sh "
                                  "(it needs espeak-ng: sudo apt-get install espeak-ng; bash .ci/setup does both)");
  }

  Data load(Rng& rng) const override {
    const LogMel log_mel(22050, 512, 256, mels_);
    auto utterances = std::make_shared<Utterances>();
    std::vector<std::size_t> train, valid;
    read_utterances(log_mel, *utterances, train, valid);
    standardise(*utterances, train);
    Parts train_parts = each_alone(train), valid_parts = each_alone(valid), probe_parts;
    if (words_ > 1) {
      Rng probe_rng(probe_seed);
      train_parts = random_sequences(*utterances, train, num_train_, words_, rng);
      valid_parts = random_sequences(*utterances, valid, num_valid_, words_, rng);
      probe_parts = random_sequences(*utterances, valid, probe_size, words_, probe_rng);
    } else {  // held-out utterances spread evenly over the file's order (so over the digits)
      for (std::size_t i = 0, n = std::min(probe_size, valid.size()); i < n; ++i) probe_parts.push_back({valid[i * valid.size() / n]});
    }
    const double seconds = log_mel.seconds_per_frame();
    const auto sets = [&](Parts parts) { return std::make_shared<SpokenSequences>(utterances, std::move(parts), seconds); };
    if (target_ == "letters") return letters_data(sets(train_parts), sets(valid_parts), sets(probe_parts));
    VectorData d;
    d.kind = InputKind::frames;
    d.dim = mels_;
    d.classes = words;
    d.probe = digit_split(*utterances, sets(probe_parts));
    d.train = digit_split(*utterances, sets(train_parts));
    d.valid = digit_split(*utterances, sets(valid_parts));
    for (const auto* split : {&d.train, &d.valid}) d.max_len = std::max(d.max_len, longest(*split->sets));
    return d;
  }

 private:
  // The utterances file's rows, each read and turned into frames; the held-out voice's go to `valid`.
  void read_utterances(const LogMel& log_mel, Utterances& all, std::vector<std::size_t>& train, std::vector<std::size_t>& valid) const {
    for (const TableRow& row : read_table(path_, "utterances file", "path", where_)) {
      const std::string at = row_place(path_, row);
      const auto digit = row.fields.size() == 6 ? parse_index(row.fields[1], 10) : std::nullopt;
      if (!digit) throw SpecError(where_, at + "expected \"file digit word voice speed pitch\" with a digit 0 to 9; got \"" + row.text + "\"");
      const std::string file = (fs::path(path_).parent_path() / row.fields[0]).string();
      const Wav wav = read_wav(file);
      if (wav.sample_rate != 22050) throw std::runtime_error(file + ": sampled at " + std::to_string(wav.sample_rate) + " Hz, not espeak-ng's 22050 Hz");
      (row.fields[3] == valid_voice_ ? valid : train).push_back(all.size());
      all.push_back({log_mel(wav.samples), row.fields[3] + ", " + row.fields[4] + " words a minute, pitch " + row.fields[5],
                     static_cast<int>(*digit)});
    }
    if (all.empty()) throw SpecError(where_, "utterances file '" + path_ + "' holds no utterance (a line \"file digit word voice speed pitch\" each)");
    if (valid.empty()) throw SpecError(voice_where_, "option 'valid_voice': no utterance of " + path_ + " is spoken by '" + valid_voice_ + "'");
    if (train.empty()) throw SpecError(voice_where_, "option 'valid_voice': every utterance of " + path_ + " is spoken by '" + valid_voice_ + "'; none is left to train on");
  }

  // Every frame minus the training frames' mean per band, over their standard deviation.
  static void standardise(Utterances& all, const std::vector<std::size_t>& train) {
    const std::size_t mels = all[0].frames.shape()[1];
    std::vector<double> sum(mels, 0.0), square(mels, 0.0);
    double count = 0.0;
    for (std::size_t u : train)
      for (std::size_t t = 0; t < all[u].frames.shape()[0]; ++t, count += 1.0)
        for (std::size_t m = 0; m < mels; ++m) sum[m] += all[u].frames(t, m), square[m] += double(all[u].frames(t, m)) * all[u].frames(t, m);
    std::vector<double> mean(mels), sd(mels);
    for (std::size_t m = 0; m < mels; ++m)
      mean[m] = sum[m] / count, sd[m] = std::sqrt(std::max(1e-12, square[m] / count - mean[m] * mean[m]));
    for (Utterance& u : all)
      for (std::size_t t = 0; t < u.frames.shape()[0]; ++t)
        for (std::size_t m = 0; m < mels; ++m) u.frames(t, m) = static_cast<float>((u.frames(t, m) - mean[m]) / sd[m]);
  }

  static std::size_t longest(const VectorSets& sets) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < sets.size(); ++i) n = std::max(n, static_cast<const SpokenSequences&>(sets).frames(i));
    return n;
  }

  static VectorSplit digit_split(const Utterances& all, std::shared_ptr<const SpokenSequences> sets) {
    VectorSplit s;
    s.labels = IntTensor::from_shape({sets->size()});
    for (std::size_t i = 0; i < sets->size(); ++i) s.labels(i) = all[sets->parts(i)[0]].digit;
    s.sets = std::move(sets);
    return s;
  }

  // Frames to letters: sources are the frames, targets the words spelled, "_" between words.
  SequenceData letters_data(std::shared_ptr<const SpokenSequences> train, std::shared_ptr<const SpokenSequences> valid,
                            std::shared_ptr<const SpokenSequences> probe) const {
    std::vector<std::vector<std::string>> spelled = {{"_"}};
    for (const std::string& w : words) spelled.push_back(letters_of(w));
    SequenceData d;
    d.src_vocab = Vocab({"<pad>", "<bos>", "<eos>"});
    d.tgt_vocab = Vocab::build(spelled, 1, false);
    d.src_dim = mels_;
    d.num_steps = words_ * (longest_word + 1);  // letters, a "_" after each word but the last, <eos>
    d.probe = letter_split(std::move(probe), d);
    d.train = letter_split(std::move(train), d);
    d.valid = letter_split(std::move(valid), d);
    return d;
  }

  static SequenceSplit letter_split(std::shared_ptr<const SpokenSequences> sets, const SequenceData& d) {
    const std::size_t n = sets->size();
    SequenceSplit s;
    s.src_lens = IntTensor::from_shape({n});
    s.tgt = IntTensor::from_shape({n, d.num_steps});
    s.tgt_lens = IntTensor::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) {
      s.src_lens(i) = static_cast<int>(sets->frames(i));
      std::vector<std::string> letters;
      for (const std::string& w : sets->said(i)) {
        if (!letters.empty()) letters.push_back("_");
        for (const std::string& l : letters_of(w)) letters.push_back(l);
      }
      s.tgt_lens(i) = pad_sequence(d.tgt_vocab.encode(letters), d.num_steps, s.tgt.data() + i * d.num_steps);
    }
    s.src_vectors = std::move(sets);
    return s;
  }

  std::string path_, valid_voice_;
  std::size_t mels_;
  std::string target_;
  std::size_t words_, num_train_ = 0, num_valid_ = 0;
  std::string where_, voice_where_;
};

}  // namespace

void register_dataset_spoken_digits(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<SpokenDigits>("spoken_digits", "the words zero ... nine spoken by espeak-ng in 5 voices: log-mel frames, labelled by the digit or spelled");
}

}  // namespace attn
