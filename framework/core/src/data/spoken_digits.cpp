// Dataset `spoken_digits`: the words "zero" ... "nine" spoken by espeak-ng in 5 voices, 3
// speeds and 3 pitches (datasets/spoken-digits/make_spoken_digits.sh makes the WAV files at
// set-up). Speech reaches a model as a set of vectors: its log-mel frames (log_mel.hpp; 23 ms
// windows every 11.6 ms at 22050 Hz), standardised per mel band with the training frames' mean
// and standard deviation, with each frame's time (VectorBatch::times) and the utterance's
// valid length. The label is the digit. One voice is held out for validation (default en-029):
// the model must recognise a voice it never heard.
// Options: path (the utterances file), valid_voice, mels.
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

struct Utterance {
  Tensor frames;  // [T, mels]
  std::string description;
};

class FrameSets final : public VectorSets {
 public:
  FrameSets(std::vector<Utterance> utterances, double seconds_per_frame)
      : utterances_(std::move(utterances)), seconds_(seconds_per_frame) {}
  std::size_t size() const override { return utterances_.size(); }
  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    std::size_t n = 1;
    for (std::size_t r : rows) n = std::max(n, utterances_[r].frames.shape()[0]);
    const std::size_t mels = utterances_[0].frames.shape()[1];
    VectorBatch b;
    b.vectors = xt::zeros<float>({rows.size(), n, mels});
    b.times = Tensor::from_shape({rows.size(), n});
    b.lens = IntTensor::from_shape({rows.size()});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Tensor& f = utterances_[rows[i]].frames;
      std::copy(f.begin(), f.end(), b.vectors.data() + i * n * mels);
      b.lens(i) = static_cast<int>(f.shape()[0]);
      for (std::size_t t = 0; t < n; ++t) b.times(i, t) = static_cast<float>(static_cast<double>(t) * seconds_);
    }
    return b;
  }
  std::string describe(std::size_t row) const override { return utterances_[row].description; }

 private:
  std::vector<Utterance> utterances_;
  double seconds_;
};

class SpokenDigits final : public DatasetSource {
 public:
  explicit SpokenDigits(const DatasetArgs& a)
      : path_(resolve_data_path(a.options.get<std::string>("path", default_path), a.base_dir)),
        valid_voice_(a.options.get<std::string>("valid_voice", "en-029")),
        mels_(a.options.get<std::size_t>("mels", 40, 8, 128)),
        where_(a.options.where("path")), voice_where_(a.options.where("valid_voice")) {
    if (!a.options.has("path") && !fs::exists(path_))  // (no place of its own: reported at the dataset's name)
      throw std::invalid_argument(std::string("the spoken digits are not made yet: ") + default_path +
                                  " does not exist. Make them with: bash datasets/spoken-digits/make_spoken_digits.sh "
                                  "(it needs espeak-ng: sudo apt-get install espeak-ng; bash .ci/setup does both)");
  }

  Data load(Rng&) const override {
    const LogMel log_mel(22050, 512, 256, mels_);
    std::vector<Utterance> train, valid;
    std::vector<int> train_labels, valid_labels;
    for (const TableRow& row : read_table(path_, "utterances file", "path", where_)) {
      const std::string at = row_place(path_, row);
      const auto digit = row.fields.size() == 6 ? parse_index(row.fields[1], 10) : std::nullopt;
      if (!digit) throw SpecError(where_, at + "expected \"file digit word voice speed pitch\" with a digit 0 to 9; got \"" + row.text + "\"");
      const std::string file = (fs::path(path_).parent_path() / row.fields[0]).string();
      const Wav wav = read_wav(file);
      if (wav.sample_rate != 22050) throw std::runtime_error(file + ": sampled at " + std::to_string(wav.sample_rate) + " Hz, not espeak-ng's 22050 Hz");
      const bool held_out = row.fields[3] == valid_voice_;
      (held_out ? valid : train).push_back({log_mel(wav.samples), row.fields[2] + " (" + row.fields[3] + ", " + row.fields[4] +
                                                                      " words a minute, pitch " + row.fields[5] + ")"});
      (held_out ? valid_labels : train_labels).push_back(static_cast<int>(*digit));
    }
    if (valid.empty()) throw SpecError(voice_where_, "option 'valid_voice': no utterance of " + path_ + " is spoken by '" + valid_voice_ + "'");
    if (train.empty()) throw SpecError(voice_where_, "option 'valid_voice': every utterance of " + path_ + " is spoken by '" + valid_voice_ + "'; none is left to train on");
    standardise(train, valid);
    VectorData d;
    d.kind = InputKind::frames;
    d.dim = mels_;
    d.classes = words;
    for (const auto* set : {&train, &valid})
      for (const Utterance& u : *set) d.max_len = std::max(d.max_len, u.frames.shape()[0]);
    // The probe set: held-out utterances spread evenly over the file's order (so over the digits).
    std::vector<Utterance> probe;
    std::vector<int> probe_labels;
    for (std::size_t i = 0, n = std::min(probe_size, valid.size()); i < n; ++i)
      probe.push_back(valid[i * valid.size() / n]), probe_labels.push_back(valid_labels[i * valid.size() / n]);
    d.probe = split(std::move(probe), probe_labels, log_mel.seconds_per_frame());
    d.train = split(std::move(train), train_labels, log_mel.seconds_per_frame());
    d.valid = split(std::move(valid), valid_labels, log_mel.seconds_per_frame());
    return d;
  }

 private:
  // Every frame minus the training frames' mean per band, over their standard deviation.
  static void standardise(std::vector<Utterance>& train, std::vector<Utterance>& valid) {
    const std::size_t mels = train[0].frames.shape()[1];
    std::vector<double> sum(mels, 0.0), square(mels, 0.0);
    double count = 0.0;
    for (const Utterance& u : train)
      for (std::size_t t = 0; t < u.frames.shape()[0]; ++t, count += 1.0)
        for (std::size_t m = 0; m < mels; ++m) sum[m] += u.frames(t, m), square[m] += double(u.frames(t, m)) * u.frames(t, m);
    std::vector<double> mean(mels), sd(mels);
    for (std::size_t m = 0; m < mels; ++m)
      mean[m] = sum[m] / count, sd[m] = std::sqrt(std::max(1e-12, square[m] / count - mean[m] * mean[m]));
    for (auto* set : {&train, &valid})
      for (Utterance& u : *set)
        for (std::size_t t = 0; t < u.frames.shape()[0]; ++t)
          for (std::size_t m = 0; m < mels; ++m) u.frames(t, m) = static_cast<float>((u.frames(t, m) - mean[m]) / sd[m]);
  }

  static VectorSplit split(std::vector<Utterance> utterances, const std::vector<int>& labels, double seconds) {
    VectorSplit s;
    s.labels = IntTensor::from_shape({labels.size()});
    std::copy(labels.begin(), labels.end(), s.labels.begin());
    s.sets = std::make_shared<FrameSets>(std::move(utterances), seconds);
    return s;
  }

  std::string path_, valid_voice_;
  std::size_t mels_;
  std::string where_, voice_where_;
};

}  // namespace

void register_dataset_spoken_digits(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<SpokenDigits>("spoken_digits", "the words zero ... nine spoken by espeak-ng in 5 voices: log-mel frames, one digit each");
}

}  // namespace attn
