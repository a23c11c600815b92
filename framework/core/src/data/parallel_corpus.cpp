// Dataset `parallel_corpus`: a tab-separated file "source<TAB>target" per line (e.g.
// datasets/fra-eng/fra.txt), preprocessed as d2l does (see data/text.hpp), split into word
// tokens, and turned into id sequences with vocabularies built from the training lines
// (tokens seen at least min_freq times; reserved <pad> <bos> <eos> <unk>).
// Lines [0, num_train) train, the next num_valid validate. A third column (attribution, in
// newer manythings.org files) is ignored.
#include <filesystem>
#include <fstream>

#include "attnlab/data/dataset.hpp"
#include "attnlab/file_kind.hpp"
#include "attnlab/registry.hpp"
#include "attnlab/data/text.hpp"

namespace attn {
namespace {

class ParallelCorpus final : public DatasetSource {
 public:
  explicit ParallelCorpus(const DatasetArgs& a)
      : path_(resolve_data_path(a.options.get<std::string>("path", "datasets/fra-eng/fra.txt"), a.base_dir)),
        num_train_(a.options.get<std::size_t>("num_train", 600, 1, 100000000)),
        num_valid_(a.options.get<std::size_t>("num_valid", 0, 0, 100000000)),
        num_steps_(a.options.get<std::size_t>("num_steps", 10, 2, 10000)),
        min_freq_(a.options.get<std::size_t>("min_freq", 2, 1, 1000000)),
        where_(a.options.where("path")),
        rows_where_(first_written(a.options, {"num_train", "num_valid", "num_steps"})) {
    if (const std::string what = not_a_regular_file(path_); what == "no such file")
      throw SpecError(where_, "dataset file '" + path_ + "' does not exist (option 'path'; a relative path is looked "
                                "for in the spec's directory, then in the current directory)");
    else if (!what.empty())
      throw SpecError(where_, "dataset file '" + path_ + "': " + what + ", not a text file (option 'path')");
  }

  Data load(Rng&) const override {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw std::runtime_error(path_ + ": cannot open the dataset file");
    std::vector<std::vector<std::string>> src, tgt;
    std::string line;
    std::size_t line_no = 0;
    const std::size_t wanted = num_train_ + num_valid_;
    while (src.size() < wanted && std::getline(in, line)) {
      ++line_no;
      if (line_no == 1) line = without_byte_order_mark(line);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (const auto why = not_text_at(line)) throw std::runtime_error(path_ + ":" + std::to_string(line_no) + ":" + *why);
      const auto tab = line.find('\t');
      if (tab == std::string::npos)
        throw std::runtime_error(path_ + ":" + std::to_string(line_no) +
                                 ": no tab on this line (expected 'source<TAB>target')");
      const auto end = line.find('\t', tab + 1);
      src.push_back(split_tokens(preprocess_nmt(line.substr(0, tab))));
      tgt.push_back(split_tokens(preprocess_nmt(line.substr(tab + 1, end == std::string::npos ? end : end - tab - 1))));
    }
    if (line_no == 0) throw std::runtime_error(path_ + ": the dataset file is empty");
    if (src.size() < wanted)
      throw std::runtime_error(path_ + ": has " + std::to_string(src.size()) + " lines, but num_train + num_valid = " +
                               std::to_string(wanted));
    const std::vector<std::vector<std::string>> src_train(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(num_train_));
    const std::vector<std::vector<std::string>> tgt_train(tgt.begin(), tgt.begin() + static_cast<std::ptrdiff_t>(num_train_));
    SequenceData d;
    d.src_vocab = Vocab::build(src_train, min_freq_);
    d.tgt_vocab = Vocab::build(tgt_train, min_freq_);
    d.num_steps = num_steps_;
    auto ids = [](const Vocab& v, const std::vector<std::vector<std::string>>& lines, std::size_t from, std::size_t to) {
      std::vector<std::vector<int>> out;
      for (std::size_t i = from; i < to; ++i) out.push_back(v.encode(lines[i]));
      return out;
    };
    d.train = make_split(ids(d.src_vocab, src, 0, num_train_), ids(d.tgt_vocab, tgt, 0, num_train_), num_steps_);
    d.valid = make_split(ids(d.src_vocab, src, num_train_, wanted), ids(d.tgt_vocab, tgt, num_train_, wanted), num_steps_);
    return d;
  }

  // The lines read (a line holds at least "a\tb\n": at most a quarter of the file's bytes are
  // lines), their tokens as strings (at most 16 bytes of string per byte of text, counting each
  // token's own 32 bytes), and both sides padded to num_steps as ints.
  Footprint footprint() const override {
    std::error_code ec;
    const double file_bytes = static_cast<double>(std::filesystem::file_size(path_, ec));
    const double rows = std::min(static_cast<double>(num_train_ + num_valid_), file_bytes / 4);
    const double text = 16.0 * std::min(file_bytes, rows * 256.0), padded = rows * 2.0 * sizeof(int) * static_cast<double>(num_steps_);
    return {{"the corpus read: up to " + std::to_string(static_cast<std::size_t>(rows)) + " lines, their tokens and both sides padded to " +
                 std::to_string(num_steps_) + " steps",
             text + padded, rows_where_}};
  }

 private:
  std::string path_;
  std::size_t num_train_, num_valid_, num_steps_, min_freq_;
  std::string where_, rows_where_;
};

}  // namespace

void register_dataset_parallel_corpus(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<ParallelCorpus>("parallel_corpus",
                                 "tab-separated sentence pairs (d2l's fra-eng preprocessing and vocabulary)");
}

}  // namespace attn
