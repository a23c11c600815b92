// Dataset `text_corpus`: a UTF-8 text file read as one long sequence of tokens, for language
// models (d2l's TimeMachine). Preprocessing (option `preprocess`):
//   d2l    every run of characters that are not ASCII letters becomes one space, then lower case
//          (d2l's re.sub('[^A-Za-z]+', ' ', text).lower())
//   none   the text as it is (its UTF-8 characters, or its words split on whitespace)
// Tokens are characters (UTF-8 code points) or words (split on whitespace). The vocabulary is
// every token of the file (no <unk>), most frequent first, after <pad> <bos> <eos>.
// Windows by position, as d2l: window i is tokens [i, i + num_steps), its labels the next tokens
// [i + 1, i + num_steps + 1); windows 0 .. num_train - 1 train, the next num_valid validate, and
// the probe set is the first probe_size validation windows. A window reaches a model as a set of
// num_steps tokens with a label per token (the next one).
// Options: path (default: The Time Machine, datasets/timemachine/timemachine.txt), tokens
// (char | word), preprocess (d2l | none), num_steps, num_train, num_valid.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "attnlab/data/text.hpp"
#include "attnlab/data/dataset.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

constexpr const char* default_path = "datasets/timemachine/timemachine.txt";

// The tokens of a corpus as windows: set i is tokens [start + i, start + i + n).
class TokenWindows final : public VectorSets {
 public:
  TokenWindows(std::shared_ptr<const std::vector<int>> corpus, std::size_t start, std::size_t count, std::size_t n,
               std::shared_ptr<const Vocab> vocab, bool words)
      : corpus_(std::move(corpus)), start_(start), count_(count), n_(n), vocab_(std::move(vocab)), words_(words) {}
  std::size_t size() const override { return count_; }
  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    VectorBatch b;
    b.tokens = IntTensor::from_shape({rows.size(), n_});
    b.lens = IntTensor::from_shape({rows.size()});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::copy_n(corpus_->begin() + static_cast<std::ptrdiff_t>(start_ + rows[i]), n_, b.tokens.data() + i * n_);
      b.lens(i) = static_cast<int>(n_);
    }
    return b;
  }
  std::string describe(std::size_t row) const override {
    std::string text;
    for (std::size_t t = 0; t < std::min<std::size_t>(n_, words_ ? 12 : 60); ++t)
      text += (words_ && t ? " " : "") + vocab_->token((*corpus_)[start_ + row + t]);
    return text + (n_ > (words_ ? 12u : 60u) ? "…" : "") + " (position " + std::to_string(start_ + row) + ")";
  }

 private:
  std::shared_ptr<const std::vector<int>> corpus_;
  std::size_t start_, count_, n_;
  std::shared_ptr<const Vocab> vocab_;
  bool words_;
};

// d2l's preprocessing: runs of non-letters to one space, lower case.
std::string d2l_preprocess(const std::string& text) {
  std::string out;
  bool gap = false;
  for (const char c : text) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (letter) out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c), gap = false;
    else if (!gap) out += ' ', gap = true;
  }
  return out;
}

class TextCorpus final : public DatasetSource {
 public:
  explicit TextCorpus(const DatasetArgs& a)
      : path_(resolve_data_path(a.options.get<std::string>("path", default_path), a.base_dir)),
        tokens_(a.options.get<std::string>("tokens", "char")),
        preprocess_(a.options.get<std::string>("preprocess", "d2l")),
        num_steps_(a.options.get<std::size_t>("num_steps", 128, 1, 1 << 16)),
        num_train_(a.options.get<std::size_t>("num_train", 100000, 1, 100000000)),
        num_valid_(a.options.get<std::size_t>("num_valid", 3000, 0, 100000000)),
        where_(a.options.where("path")), sizes_where_(first_written(a.options, {"num_train", "num_valid", "num_steps"})) {
    if (tokens_ != "char" && tokens_ != "word")
      throw SpecError(a.options.where("tokens"), "option 'tokens' must be 'char' (characters) or 'word' (split on whitespace); got '" + tokens_ + "'");
    if (preprocess_ != "d2l" && preprocess_ != "none")
      throw SpecError(a.options.where("preprocess"), "option 'preprocess' must be 'd2l' (letters only, lower case, as d2l) or 'none'; got '" +
                                                         preprocess_ + "'");
  }

  // The text read and split into tokens (a token's string takes at most 40 bytes per byte of
  // text, a character's 32 plus its id), and the labels of every window as ints (the tokens are
  // read from the corpus a batch at a time).
  Footprint footprint() const override {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path_, ec);
    const double text = ec ? 0.0 : 41.0 * static_cast<double>(size);
    const double per_window = sizeof(int) * static_cast<double>(num_steps_);
    return {MemoryUse{"the text of " + path_ + " in tokens", text, where_},
            MemoryUse{"the labels of " + std::to_string(num_train_ + num_valid_) + " windows of " + std::to_string(num_steps_) + " tokens",
                      per_window * static_cast<double>(num_train_ + num_valid_), sizes_where_}};
  }

  // A context of `length` tokens: the same text and the same validation windows (they start
  // after the training ones), each `length` tokens long.
  std::optional<Options> at_length(const Options& options, std::size_t length) const override {
    Options o = options;
    o.set("num_steps", std::to_string(length));
    return o;
  }

  Data load(Rng&) const override {
    const std::string text = read_text();
    const std::vector<std::string> tokens = tokenize(preprocess_ == "d2l" ? d2l_preprocess(text) : text);
    const std::size_t needed = num_train_ + num_valid_ + num_steps_;
    const auto cause = [&]() -> std::string {  // (asked only when the text is too short)
      return preprocess_ == "d2l" && tokenize(text).size() >= needed
                 ? " after d2l's preprocessing, which keeps ASCII letters only ('preprocess: none' keeps the text as it is)" : "";
    };
    if (tokens.size() < needed && sizes_where_.empty() && where_.empty())  // (no place of its own: reported at the dataset's name)
      throw std::invalid_argument(path_ + " holds " + std::to_string(tokens.size()) + " " + tokens_ + " tokens" + cause() + "; the default " +
                                  std::to_string(num_train_) + " training and " + std::to_string(num_valid_) + " validation windows of " +
                                  std::to_string(num_steps_) + " need " + std::to_string(needed) + " (set num_train, num_valid or num_steps)");
    if (tokens.size() < needed)
      throw SpecError(sizes_where_.empty() ? where_ : sizes_where_, path_ + " holds " + std::to_string(tokens.size()) + " " + tokens_ + " tokens" + cause() + "; " +
                                        std::to_string(num_train_) + " training and " + std::to_string(num_valid_) +
                                        " validation windows of " + std::to_string(num_steps_) + " need " + std::to_string(needed) +
                                        " (lower num_train, num_valid or num_steps)");
    auto vocab = std::make_shared<const Vocab>(Vocab::build({tokens}, 1, false));
    auto corpus = std::make_shared<std::vector<int>>(vocab->encode(tokens));
    VectorData d;
    d.kind = InputKind::tokens;
    d.max_len = num_steps_;
    d.vocab = *vocab;
    d.classes = vocab->tokens();
    d.train = windows(corpus, 0, num_train_, vocab);
    d.valid = windows(corpus, num_train_, num_valid_, vocab);
    d.probe = windows(corpus, num_train_, std::min(probe_size, num_valid_), vocab);
    return d;
  }

 private:
  std::string read_text() const {
    std::error_code ec;
    if (std::filesystem::exists(path_, ec) && !std::filesystem::is_regular_file(path_, ec))
      throw SpecError(where_, path_ + " is not a regular file (option 'path' names a text file)");
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw SpecError(where_, "cannot read the text file " + path_ + " (option 'path'; the default is The Time Machine, " + default_path + ")");
    std::ostringstream text;
    text << in.rdbuf();
    const std::string read = without_byte_order_mark(text.str());
    std::size_t line_no = 1;
    for (std::size_t start = 0; start < read.size(); ++line_no) {  // UTF-8 text, whatever the preprocessing
      const std::size_t end = std::min(read.find('\n', start), read.size());
      if (const auto why = not_text_at(read.substr(start, end - start)))
        throw SpecError(where_, path_ + ":" + std::to_string(line_no) + ":" + *why + " (option 'path' names a UTF-8 text file)");
      start = end + 1;
    }
    return read;
  }

  std::vector<std::string> tokenize(const std::string& text) const {
    if (tokens_ == "char") return utf8_characters(text);
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }

  VectorSplit windows(const std::shared_ptr<const std::vector<int>>& corpus, std::size_t start, std::size_t count,
                      const std::shared_ptr<const Vocab>& vocab) const {
    VectorSplit s;
    s.labels = IntTensor::from_shape({count, num_steps_});
    for (std::size_t i = 0; i < count; ++i)
      std::copy_n(corpus->begin() + static_cast<std::ptrdiff_t>(start + i + 1), num_steps_, s.labels.data() + i * num_steps_);
    s.sets = std::make_shared<TokenWindows>(corpus, start, count, num_steps_, vocab, tokens_ == "word");
    return s;
  }

  std::string path_, tokens_, preprocess_;
  std::size_t num_steps_, num_train_, num_valid_;
  std::string where_, sizes_where_;
};

}  // namespace

void register_dataset_text_corpus(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<TextCorpus>("text_corpus", "a text file as one long sequence of characters or words, in windows with the next token as label (language models)");
}

}  // namespace attn
