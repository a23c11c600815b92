// Evaluation at other lengths (evaluation.lengths) and the decoder-only layout of sequence
// tasks: a model trained at one length, read at others; the metrics per length in the results
// file, `compare` and the report; what cannot be evaluated refused before training.
#include <catch2/catch.hpp>

#include <fstream>

#include "attnlab/models/model.hpp"
#include "lab/builtins.hpp"
#include "lab/results/results_format.hpp"
#include "lab/results/summary.hpp"
#include "test_support.hpp"

using namespace attn;

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

Data load(const std::string& dataset, const std::vector<std::pair<std::string, std::string>>& options) {
  Options o;
  for (const auto& [k, v] : options) o.set(k, v, "spec.yaml:4:3");
  Rng rng(1);
  return test::builtins().datasets.create(dataset, DatasetArgs{o, test::source_root})->load(rng);
}

}  // namespace

TEST_CASE("evaluation.lengths: a language model read at contexts it never trained at; per length in the file, compare and the report", "[lengths][language]") {
  test::TempDir dir("attnlab-lengths");
  write(dir / "lm.yaml", "dataset: {name: text_corpus, path: " + test::source_root + "/datasets/timemachine/timemachine.txt, num_steps: 16, "
                         "num_train: 640, num_valid: 64}\n"
                         "model: {name: language_model, d_model: 16, heads: 2, layers: 1, max_len: 64}\n"
                         "training: {optimizer: adam, lr: 0.01, steps: 15, batch_size: 64}\n"
                         "evaluation: {lengths: [16, 64]}\n"
                         "sweep: {model.positional: [alibi, learned]}\n");
  const auto run = test::command_output(test::attnlab_exe + " run " + dir / "lm.yaml" + " --output " + dir / "lm.h5" + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.text, Catch::Contains("evaluating at length 64 (2 of 2)"));
  CHECK_THAT(run.text, Catch::Contains("2 epochs"));  // 15 steps of 64 windows out of 640: 10 per epoch
  const ResultsReader file(dir / "lm.h5");
  for (const std::string id : {"positional-alibi", "positional-learned"}) {
    const LengthMetrics lengths = file.length_metrics(id);
    REQUIRE(lengths.size() == 2);
    CHECK(lengths[0].first == 16);
    CHECK(lengths[1].first == 64);
    // at the training context the model's own evaluation; at 64 another (and a finite) one
    CHECK(lengths[0].second.at("valid_ppl") == Approx(file.run(id).metrics.at("valid_ppl")).epsilon(1e-6));
    CHECK(std::isfinite(lengths[1].second.at("valid_ppl")));
    CHECK(lengths[1].second.at("valid_ppl") != lengths[0].second.at("valid_ppl"));
    CHECK(file.history(id).size() > 0);
  }
  const auto compare = test::command_output(test::attnlab_exe + " compare " + dir / "lm.h5");
  CHECK_THAT(compare.text, Catch::Contains("valid_ppl at each evaluated length") && Catch::Contains("positional=alibi"));
  const auto report = test::command_output(test::attnlab_exe + " report " + dir / "lm.h5" + " -o " + dir / "lm.html");
  REQUIRE(report.status == 0);
  const std::string html = test::read_text(dir / "lm.html");
  CHECK_THAT(html, Catch::Contains("id=\"lengths-panel\"") && Catch::Contains("\"lengths\":{\"valid_accuracy\""));
}

TEST_CASE("evaluation.lengths on a sequence task: exact match at source lengths never seen; the dataset's options at each length", "[lengths][sequence]") {
  const auto source = test::builtins().datasets.create("sequence_task", DatasetArgs{Options{}, test::source_root});
  Options o;
  o.set("task", "copy");
  const std::optional<Options> at = source->at_length(o, 12);
  REQUIRE(at);
  CHECK(at->get<std::size_t>("min_len", 0) == 12);
  CHECK(at->get<std::size_t>("max_len", 0) == 12);
  CHECK(at->get<std::size_t>("num_steps", 0) == 13);  // the string and <eos>
  CHECK_FALSE(test::builtins().datasets.create("regression1d", DatasetArgs{Options{}, test::source_root})->at_length(Options{}, 5));

  test::TempDir dir("attnlab-lengths-seq");
  write(dir / "copy.yaml", "dataset: {name: sequence_task, task: copy, min_len: 2, max_len: 4, num_steps: 6, num_train: 256, num_valid: 32}\n"
                           "model: {name: transformer, d_model: 16, heads: 2, layers: 1, ffn_hidden: 32, dropout: 0}\n"
                           "training: {optimizer: adam, lr: 0.01, epochs: 2, batch_size: 64}\n"
                           "evaluation: {lengths: [3, 7]}\n");
  const auto run = test::command_output(test::attnlab_exe + " run " + dir / "copy.yaml" + " --output " + dir / "copy.h5" + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  const LengthMetrics lengths = ResultsReader(dir / "copy.h5").length_metrics("run");
  REQUIRE(lengths.size() == 2);
  for (const auto& [length, metrics] : lengths) {
    INFO("length " << length);
    CHECK(metrics.count("valid_exact_match"));
    CHECK(metrics.count("valid_token_acc"));
  }
  CHECK_THAT(run.text, Catch::Contains("valid_exact_match at each evaluated length"));
}

TEST_CASE("a metric at another length is named <metric>@<digits>; other names with '@' are metrics of their own", "[lengths][compare]") {
  CHECK(is_length_metric("valid_ppl@512"));
  CHECK(length_metric_parts("valid_ppl@512") == std::pair<std::string, std::size_t>{"valid_ppl", 512});
  CHECK(length_metric_name("valid_exact_match", 16) == "valid_exact_match@16");
  for (const std::string other : {"acc@top5", "valid_accuracy@", "plain", "a@1b"}) {
    INFO(other);
    CHECK_FALSE(is_length_metric(other));
  }
  CHECK_FALSE(is_per_class_metric("valid_accuracy.yes@12"));  // (a class's accuracy at a length: tables by length)
}

TEST_CASE("refused at evaluation.lengths before anything runs: a dataset without lengths, a table too short; nothing written", "[lengths][errors]") {
  test::TempDir dir("attnlab-lengths-bad");
  write(dir / "bad.yaml", "dataset: {name: text_corpus, path: " + test::source_root + "/datasets/timemachine/timemachine.txt, num_steps: 16, "
                          "num_train: 64, num_valid: 8}\n"
                          "model: {name: language_model, d_model: 8, heads: 2, positional: learned, max_len: 32}\n"
                          "evaluation: {lengths: [16, 48]}\n");
  const auto run = test::command_output(test::attnlab_exe + " run " + dir / "bad.yaml" + " --output " + dir / "bad.h5" + " 2>&1");
  CHECK(run.status == 2);
  CHECK_THAT(run.text, Catch::Contains("bad.yaml:3:14: at length 48: option 'max_len' (32) must be at least the dataset's num_steps (48)"));
  CHECK_FALSE(std::filesystem::exists(dir / "bad.h5"));
}

TEST_CASE("sequence_task layout decoder: 'source = target' in one sequence, labels on the target only, exact match reported", "[data][lengths]") {
  const Data data = load("sequence_task", {{"task", "reverse"}, {"layout", "decoder"}, {"num_train", "50"}, {"num_valid", "10"}});
  const auto& d = std::get<VectorData>(data);
  REQUIRE(d.kind == InputKind::tokens);
  CHECK(d.labels_answer);
  CHECK(d.max_len == 19);  // num_steps 10: a source of up to 9 digits, "=", a target of 9 and <eos>, less the last token
  const VectorBatch b = d.train.sets->batch({0});
  const std::size_t n = static_cast<std::size_t>(b.lens(0)), source = (n - 1) / 2;  // n = 2L + 1
  const int separator = static_cast<int>(d.vocab.size() - 1);
  REQUIRE(d.vocab.token(separator) == "=");
  CHECK(b.tokens(0, source) == separator);
  for (std::size_t j = 0; j < source; ++j) {
    CHECK(d.train.labels(0, j) == -1);                                // the source is given
    CHECK(d.train.labels(0, source + j) == b.tokens(0, source - 1 - j));  // then the source reversed
  }
  CHECK(d.train.labels(0, n - 1) == Vocab::eos);
  CHECK(d.train.labels(0, n) == -1);  // past the sequence
  Options o;
  o.set("task", "sorted");
  o.set("layout", "decoder", "spec.yaml:3:11");
  CHECK_THROWS_WITH(test::builtins().datasets.create("sequence_task", DatasetArgs{o, test::source_root}),
                    Catch::Contains("spec.yaml:3:11") && Catch::Contains("gives one label per string"));
  Options cut;  // a string longer than num_steps would lose its <eos>, and the layout a digit
  cut.set("layout", "decoder");
  cut.set("max_len", "12");
  cut.set("num_steps", "10", "spec.yaml:5:14");
  CHECK_THROWS_WITH(test::builtins().datasets.create("sequence_task", DatasetArgs{cut, test::source_root}),
                    Catch::Contains("spec.yaml:5:14") && Catch::Contains("num_steps (10) must hold the longest string and <eos>, 13 or more"));
  ParamStore store;
  Rng rng(3);
  Options lm;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"d_model", "8"}, {"heads", "2"}}) lm.set(k, v);
  auto model = test::builtins().models.create("language_model", ModelArgs{test::builtins(), ParamScope(store, rng), lm, data});
  const Metrics m = model->evaluate(false);
  CHECK(m.count("valid_exact_match"));
  CHECK(m.at("valid_exact_match") <= m.at("valid_accuracy"));
}
