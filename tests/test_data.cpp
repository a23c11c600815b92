// Datasets: vocabularies, d2l's text preprocessing, the fra-eng corpus and its errors, the
// synthetic sequence tasks and the 1-D regression data.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include <unistd.h>

#include "lab/builtins.hpp"
#include "attnlab/data/text.hpp"
#include "attnlab/registries.hpp"
#include "test_support.hpp"

using namespace attn;

namespace fs = std::filesystem;

namespace {

Data load(const std::string& dataset, const std::vector<std::pair<std::string, std::string>>& options, std::uint64_t seed = 1) {
  Registries r;
  register_builtins(r);
  Options o;
  for (const auto& [k, v] : options) o.set(k, v, "spec.yaml:3:5");
  auto source = r.datasets.create(dataset, DatasetArgs{o, attn::test::paths::source_root});
  o.require_all_read("dataset '" + dataset + "'");
  Rng rng(seed);
  return source->load(rng);
}

// A new file holding `content`, in a directory of this process removed when it ends.
std::string temp_file(const std::string& content) {
  static const attn::test::TempDir dir("attnlab-data");
  static std::size_t files = 0;
  const std::string name = dir / ("file-" + std::to_string(++files));
  std::ofstream(name, std::ios::binary) << content;
  return name;
}

}  // namespace

TEST_CASE("vocabulary: reserved tokens first, then by frequency, ties by first appearance", "[data][vocab]") {
  const Vocab v = Vocab::build({{"b", "a", "c"}, {"a", "c", "d"}, {"c"}}, 2);
  CHECK(v.tokens() == std::vector<std::string>{"<pad>", "<bos>", "<eos>", "<unk>", "c", "a"});
  CHECK(v.id("d") == Vocab::unk);
  CHECK(v.decode({5, 4, 0, 2, 5}) == std::vector<std::string>{"a", "c"});
}

TEST_CASE("d2l preprocessing: typographic spaces, lowercase, space before punctuation", "[data][text]") {
  CHECK(preprocess_nmt("Cours\u202f!") == "cours !");
  CHECK(preprocess_nmt("Ça alors\u00a0!") == "ça alors !");
  CHECK(preprocess_nmt("Go.") == "go .");
  CHECK(preprocess_nmt("ÉTÉ, Œuvre?") == "été , œuvre ?");
  CHECK(invalid_utf8_at("va !") == std::nullopt);
  CHECK(invalid_utf8_at("ab\xff") == std::optional<std::size_t>(2));
  CHECK(invalid_utf8_at("\xc3") == std::optional<std::size_t>(0));       // truncated
  CHECK(invalid_utf8_at("\xc0\xaf") == std::optional<std::size_t>(0));   // overlong
}

TEST_CASE("the fra-eng corpus reads as d2l reads it", "[data][corpus]") {
  const auto d = std::get<SequenceData>(load("parallel_corpus", {{"path", "datasets/fra-eng/fra.txt"},
                                                                 {"num_train", "600"}, {"num_valid", "40"}}));
  CHECK(d.train.size() == 600);
  CHECK(d.valid.size() == 40);
  CHECK(d.src_vocab.token(Vocab::unk) == "<unk>");
  std::vector<int> first_src(d.train.src.data(), d.train.src.data() + 10);
  std::vector<int> first_tgt(d.train.tgt.data(), d.train.tgt.data() + 10);
  CHECK(join_tokens(d.src_vocab.decode(first_src)) == "go .");
  CHECK(join_tokens(d.tgt_vocab.decode(first_tgt)) == "va !");
  CHECK(d.train.src_lens(0) == 3);  // go . <eos>
  CHECK(d.train.tgt(0, 3) == Vocab::pad);
}

TEST_CASE("corpus errors name the file and line", "[data][corpus][errors]") {
  CHECK_THROWS_WITH(load("parallel_corpus", {{"path", "/no/such/file.txt"}}),
                    Catch::StartsWith("spec.yaml:3:5: dataset file '/no/such/file.txt' does not exist"));
  const std::string empty = temp_file("");
  CHECK_THROWS_WITH(load("parallel_corpus", {{"path", empty}}), empty + ": the dataset file is empty");
  const std::string no_tab = temp_file("Go.\tVa !\nHi. Salut !\n");
  CHECK_THROWS_WITH(load("parallel_corpus", {{"path", no_tab}, {"num_train", "2"}}),
                    no_tab + ":2: no tab on this line (expected 'source<TAB>target')");
  const std::string bad_utf8 = temp_file("Go.\tVa !\nHi.\tSal\xe9ut !\n");
  CHECK_THROWS_WITH(load("parallel_corpus", {{"path", bad_utf8}, {"num_train", "2"}}),
                    bad_utf8 + ":2:8: invalid UTF-8 (the file must be UTF-8 encoded)");
  const std::string short_file = temp_file("Go.\tVa !\n");
  CHECK_THROWS_WITH(load("parallel_corpus", {{"path", short_file}, {"num_train", "5"}}),
                    Catch::Contains("has 1 lines, but num_train + num_valid = 5"));
  const std::string nul = temp_file(std::string("Go.\tVa !\nHi.\tSa\0lut !\n", 22));  // a NUL would be cut where tokens are stored
  CHECK_THROWS_WITH(load("parallel_corpus", {{"path", nul}, {"num_train", "2"}}),
                    nul + ":2:7: a control character (U+0000): the file holds text only");
  const std::string dir = fs::temp_directory_path() / ("attnlab-corpus-dir-" + std::to_string(getpid()));
  fs::create_directory(dir);
  CHECK_THROWS_WITH(load("parallel_corpus", {{"path", dir}}), Catch::Contains("this is a directory, not a text file"));
  fs::remove(dir);
  for (const auto& f : {empty, no_tab, bad_utf8, short_file, nul}) std::remove(f.c_str());
}

TEST_CASE("sequence tasks: reverse, copy, sort and add are what they say", "[data][tasks]") {
  for (const std::string task : {"reverse", "copy", "sort", "add"}) {
    const auto d = std::get<SequenceData>(load("sequence_task", {{"task", task}, {"num_train", "50"}, {"num_valid", "5"}}));
    REQUIRE(d.train.size() == 50);
    for (std::size_t i = 0; i < 50; ++i) {
      std::vector<int> src(d.train.src.data() + i * 10, d.train.src.data() + (i + 1) * 10);
      std::vector<int> tgt(d.train.tgt.data() + i * 10, d.train.tgt.data() + (i + 1) * 10);
      const auto s = d.src_vocab.decode(src), t = d.tgt_vocab.decode(tgt);
      if (task == "reverse") CHECK(t == std::vector<std::string>(s.rbegin(), s.rend()));
      if (task == "copy") CHECK(t == s);
      if (task == "sort") CHECK(std::is_sorted(t.begin(), t.end()));
      if (task == "add") {
        const std::string expr = join_tokens(s);
        std::string a, b;
        bool second = false;
        for (const auto& tok : s) (tok == "+" ? second = true, a : second ? b += tok : a += tok);
        std::string sum;
        for (const auto& tok : t) sum += tok;
        CHECK(std::stoull(sum) == std::stoull(a) + std::stoull(b));
      }
      if (task != "add") CHECK((s.size() >= 3 && s.size() <= 8));
    }
  }
  CHECK_THROWS_WITH(load("sequence_task", {{"task", "rotate"}}), Catch::Contains("one of copy, reverse, sort, add"));
}

TEST_CASE("the probe set: the same examples for every run seed, with the task's gold alignment", "[data][tasks][probe]") {
  for (const std::string task : {"reverse", "copy", "sort"}) {
    DYNAMIC_SECTION(task) {
      const auto a = std::get<SequenceData>(load("sequence_task", {{"task", task}, {"num_train", "20"}}, 1));
      const auto b = std::get<SequenceData>(load("sequence_task", {{"task", task}, {"num_train", "20"}}, 2));
      REQUIRE(a.probe.size() == probe_size);
      CHECK((a.train.src != b.train.src));  // the seed changes the training data...
      CHECK((a.probe.src == b.probe.src));  // ...not the probe set
      CHECK((a.probe.alignment == b.probe.alignment));
      for (std::size_t i = 0; i < probe_size; ++i) {
        const int n = a.probe.src_lens(i) - 1;  // digits before <eos>
        for (int t = 0; t <= n; ++t) {
          const int gold = a.probe.alignment(i, static_cast<std::size_t>(t));
          INFO("example " << i << ", target position " << t);
          CHECK(a.probe.tgt(i, static_cast<std::size_t>(t)) == a.probe.src(i, static_cast<std::size_t>(gold)));  // the token it copies
          if (task == "reverse" && t < n) CHECK(gold == n - 1 - t);
          if (task == "copy") CHECK(gold == t);
        }
        CHECK(a.probe.alignment(i, static_cast<std::size_t>(n)) == n);  // <eos> looks at <eos>
        if (static_cast<std::size_t>(n + 1) < 10) CHECK(a.probe.alignment(i, static_cast<std::size_t>(n + 1)) == -1);
      }
    }
  }
  // add has no token-to-token alignment
  CHECK(std::get<SequenceData>(load("sequence_task", {{"task", "add"}})).probe.alignment.dimension() == 0);
}

TEST_CASE("regression1d: d2l's function, sorted inputs, noise-free test truth, seeded", "[data][regression]") {
  const auto a = std::get<RegressionData>(load("regression1d", {}, 5));
  const auto b = std::get<RegressionData>(load("regression1d", {}, 5));
  REQUIRE(a.x_train.size() == 50);
  REQUIRE(a.x_test.size() == 50);
  CHECK((a.y_train == b.y_train));
  CHECK(std::is_sorted(a.x_train.begin(), a.x_train.end()));
  CHECK(a.y_test(10) == Approx(2 * std::sin(1.0) + 1.0));
}

TEST_CASE("regression1d: a points file's bad line names the field and why it is no float", "[data][regression]") {
  const auto refused = [](const std::string& line, const std::string& says) {
    const std::string path = temp_file("0 1\n" + line + "\n2 3\n");
    INFO(line);
    CHECK_THROWS_WITH(load("regression1d", {{"points", path}}), Catch::Contains(path + ":2: " + says));
    std::remove(path.c_str());
  };
  refused("1e308 2", "x = 1e308 is beyond what a 32-bit float can hold (at most about 3.40282e+38 in size)");  // was "expected two finite numbers"
  refused("1 -1e-50", "y = -1e-50 is nonzero but nearer to 0 than a 32-bit float can hold");
  refused("1 inf", "y = inf is not a number (decimal notation");
  refused("0x10 1", "x = 0x10 is not a number");
  refused("1 2 3", "expected two numbers \"x y\", got \"1 2 3\"");
  refused("1", "expected two numbers");
  const auto ok = std::get<RegressionData>(load("regression1d", {{"points", temp_file("0 1 # a comment\n\n-2e3 4.5\n")}}));
  CHECK(ok.x_train.size() == 2);
}

TEST_CASE("repeated_patterns: each sequence tiles a random pattern; validation labels only the later copies", "[data][tasks][patterns]") {
  const auto d = std::get<VectorData>(load("repeated_patterns", {{"vocab", "10"}, {"length", "20"}, {"min_period", "3"}, {"max_period", "6"},
                                                                 {"num_train", "40"}, {"num_valid", "30"}}));
  REQUIRE(d.vocab.size() == 13);  // <pad> <bos> <eos> t0 .. t9
  CHECK(d.vocab.token(3) == "t0");
  CHECK(d.max_len == 19);
  for (const bool valid : {false, true}) {
    const VectorSplit& split = valid ? d.valid : d.train;
    std::vector<std::size_t> rows(split.size());
    std::iota(rows.begin(), rows.end(), std::size_t{0});
    const VectorBatch b = split.sets->batch(rows);
    REQUIRE(b.tokens.shape()[1] == 19);
    std::set<std::size_t> periods;
    for (std::size_t s = 0; s < rows.size(); ++s) {
      std::size_t period = 1;  // the smallest shift under which the sequence repeats
      while (period < 19) {
        bool repeats = true;
        for (std::size_t i = period; i < 19; ++i) repeats = repeats && b.tokens(s, i) == b.tokens(s, i - period);
        if (repeats) break;
        ++period;
      }
      CHECK(period <= 6);
      periods.insert(period);
      for (std::size_t i = 0; i < 19; ++i) {
        const int next = split.labels(s, i);
        if (next >= 0 && i + 1 < 19) CHECK(next == b.tokens(s, i + 1));  // the next token
        if (!valid) CHECK(next >= 3);
      }
      if (valid) CHECK(split.labels(s, 0) == -1);  // the first copy's next tokens are unpredictable
    }
    CHECK(periods.size() >= 3);
  }
  CHECK_THROWS_WITH(load("repeated_patterns", {{"max_period", "64"}}), Catch::Contains("must be below 'length' (64)"));
  CHECK_THROWS_WITH(load("repeated_patterns", {{"min_period", "40"}, {"max_period", "30"}}), Catch::Contains("at most 'max_period' (30)"));
  CHECK_THROWS_WITH(load("repeated_patterns", {{"measure", "first"}}), Catch::Contains("'later_copies'"));
}

TEST_CASE("a UTF-8 byte-order mark before a file's text is no token (corpus, text corpus, graph tables)", "[data][text]") {
  const std::string bom = "\xEF\xBB\xBF";
  CHECK(without_byte_order_mark(bom + "go .") == "go .");
  CHECK(without_byte_order_mark("go " + bom) == "go " + bom);  // only at the start
  const std::string pairs = "go .\tva !\nhi .\tsalut !\nrun !\tcours !\n";
  const auto plain = std::get<SequenceData>(load("parallel_corpus", {{"path", temp_file(pairs)}, {"num_train", "2"}, {"num_valid", "1"}}));
  const auto marked = std::get<SequenceData>(load("parallel_corpus", {{"path", temp_file(bom + pairs)}, {"num_train", "2"}, {"num_valid", "1"}}));
  CHECK(marked.src_vocab.tokens() == plain.src_vocab.tokens());
  const std::string text = "the time traveller said so, and the time went by.\n";
  const std::vector<std::pair<std::string, std::string>> corpus = {{"tokens", "char"}, {"num_steps", "8"}, {"num_train", "16"}, {"num_valid", "8"}};
  auto with_path = [&](const std::string& path) {
    auto options = corpus;
    options.push_back({"path", path});
    return std::get<VectorData>(load("text_corpus", options)).vocab.tokens();
  };
  CHECK(with_path(temp_file(bom + text)) == with_path(temp_file(text)));
  const auto graph = load("graph", {{"edges", temp_file(bom + "0 1\n1 2\n2 0\n")}, {"labels", temp_file(bom + "0 0\n1 1\n2 0\n")},
                                    {"train_nodes", "[0, 1]"}});
  CHECK(std::get<VectorData>(graph).max_len == 3);
}

TEST_CASE("data tables and text corpora hold text: a NUL, binary bytes or invalid UTF-8 are named at their line and column",
          "[data][text][errors]") {
  const std::string edges = temp_file(std::string("0 1\n1 2\n2 \0 0\n", 13)), labels = temp_file("0 0\n1 1\n2 0\n");
  CHECK_THROWS_WITH(load("graph", {{"edges", edges}, {"labels", labels}}),
                    "spec.yaml:3:5: " + edges + ":3:3: a control character (U+0000): the file holds text only (edges file, option 'edges')");
  const std::string png = temp_file("\x89PNG\r\n\x1a\n");
  CHECK_THROWS_WITH(load("graph", {{"edges", edges}, {"labels", png}}),
                    "spec.yaml:3:5: " + png + ":1:1: invalid UTF-8 (the file must be UTF-8 encoded) (labels file, option 'labels')");
  const std::string crlf = temp_file("0 1\r\n1 2\r\n"), crlf_labels = temp_file("0 0\r\n1 1\r\n2 0\r\n");
  CHECK(std::get<VectorData>(load("graph", {{"edges", crlf}, {"labels", crlf_labels}, {"train_nodes", "[0, 1]"}})).max_len == 3);
  const std::string text = temp_file("the time machine\nis a \xff story\n");
  CHECK_THROWS_WITH(load("text_corpus", {{"path", text}, {"preprocess", "none"}, {"num_steps", "4"}, {"num_train", "4"}, {"num_valid", "1"}}),
                    "spec.yaml:3:5: " + text + ":2:6: invalid UTF-8 (the file must be UTF-8 encoded) (option 'path' names a UTF-8 text file)");
  const std::string digits = temp_file("3 1 4 1 5 9 2 6 5 3 5 8 9 7 9 3 2 3 8 4 6 2 6 4 3 3 8 3 2 7 9 5\n");
  CHECK_THROWS_WITH(load("text_corpus", {{"path", digits}, {"num_steps", "8"}, {"num_train", "16"}, {"num_valid", "4"}}),
                    Catch::Contains("holds 1 char tokens after d2l's preprocessing, which keeps ASCII letters only ('preprocess: none' keeps"));
}

TEST_CASE("graph features: a node given twice, a node past the graph, a number beyond float: each at its line", "[data][errors]") {
  const std::string edges = temp_file("0 1\n1 2\n"), labels = temp_file("0 0\n1 1\n2 0\n");
  const auto with = [&](const std::string& features) {
    return load("graph", {{"edges", edges}, {"labels", labels}, {"features", features}, {"train_nodes", "[0, 1]"}});
  };
  const std::string twice = temp_file("0 1 2\n1 3 4\n0 5 6\n2 7 8\n");
  CHECK_THROWS_WITH(with(twice), "spec.yaml:3:5: " + twice + ":3: node 0 has features twice (first on line 1)");
  const std::string past = temp_file("0 1 2\n1 3 4\n3 5 6\n");
  CHECK_THROWS_WITH(with(past), Catch::StartsWith("spec.yaml:3:5: " + past + ":3: expected \"node f_1 ... f_2\" (as the first line), a node 0 to 2"));
  const std::string missing = temp_file("0 1 2\n2 3 4\n");
  CHECK_THROWS_WITH(with(missing), "spec.yaml:3:5: " + missing + ": node 1 has no feature line; each of the 3 nodes of the labels file needs one");
  const std::string huge = temp_file("0 1e39 2\n1 3 4\n2 5 6\n");
  CHECK_THROWS_WITH(with(huge), Catch::StartsWith("spec.yaml:3:5: " + huge + ":1: feature 1 ('1e39') is beyond"));
  CHECK(std::get<VectorData>(with(temp_file("2 5 6\n0 1 2\n1 3 4\n"))).dim == 2);
}

TEST_CASE("spoken digits: a table that holds no utterance says so", "[data][errors]") {
  const std::string empty = temp_file("# file digit word voice speed pitch\n");
  CHECK_THROWS_WITH(load("spoken_digits", {{"path", empty}}),
                    "spec.yaml:3:5: utterances file '" + empty + "' holds no utterance (a line \"file digit word voice speed pitch\" each)");
}
