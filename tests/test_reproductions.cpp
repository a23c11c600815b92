// d2l's printed results, reproduced end to end (recorded in docs/reproductions.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <sstream>

#include "lab/builtins.hpp"
#include "lab/results/results_format.hpp"
#include "lab/runner/runner.hpp"
#include "attnlab/models/metrics.hpp"
#include "attnlab/models/sequence_model.hpp"
#include "attnlab/training/trainer.hpp"
#include "golden.hpp"
#include "page_quotes.hpp"
#include "test_support.hpp"

using namespace attn;

TEST_CASE("Bahdanau attention on fra-eng (d2l 0.17 §10.4): loss <= 0.03 and d2l's translations", "[reproduction][slow]") {
  Registries r;
  register_builtins(r);
  Options data_options;
  data_options.set("path", "datasets/fra-eng/fra.txt");
  data_options.set("num_train", "600");
  data_options.set("num_steps", "10");
  Rng data_rng(0);
  const Data data = r.datasets.create("parallel_corpus", DatasetArgs{data_options, attn::test::paths::source_root})->load(data_rng);

  Options o;  // d2l 0.17: embed 32, hidden 32, 2 GRU layers, dropout 0.1, additive attention
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"embed", "32"}, {"hidden", "32"}, {"layers", "2"}, {"dropout", "0.1"}, {"cell", "gru"},
           {"attention.mode", "qvv"}, {"attention.scoring", "additive"}, {"packed", "false"}, {"loss", "d2l"}})
    o.set(k, v);
  ParamStore store;
  Rng rng(1);
  auto model = r.models.create("seq2seq", ModelArgs{r, ParamScope(store, rng), o, data});
  TrainConfig c;  // batch 64, Adam 0.005, clipping 1, 250 epochs
  c.lr = 0.005f;
  c.epochs = 250;
  c.batch_size = 64;
  c.clip = 1.0;
  c.eval_every = 1000;
  Trainer t(*model, store, r, c, 1);
  REQUIRE(t.run() == RunStatus::finished);
  // d2l prints sum_b (1/T) sum_t ce / (valid tokens) = per-token cross-entropy / T.
  const double d2l_loss = t.history().back().train_loss / 10.0;
  INFO("final training loss (d2l's measure): " << d2l_loss);
  CHECK(d2l_loss <= 0.03);

  auto& seq = dynamic_cast<SequenceModel&>(*model);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"go .", "va !"}, {"i lost .", "j'ai perdu ."}, {"i'm home .", "je suis chez moi ."}};
  for (const auto& [english, french] : pairs) {
    const Translation tr = seq.translate(seq.data().src_vocab.encode(split_tokens(english)), {10, 1, 0.75});
    const std::string got = join_tokens(seq.data().tgt_vocab.decode(tr.tokens));
    INFO(english << " => " << got);
    CHECK(got == french);
    CHECK(bleu(split_tokens(got), split_tokens(french), 2) == Approx(1.0));
  }
}

namespace {

// experiments/<name>.yaml run into a temporary results file, then d2l's four sentences translated
// by `attnlab translate` from that file, as a user would.
struct FraEngRun {
  test::TempDir dir{"attnlab-fra-eng"};
  std::string file;
  double d2l_loss = 0.0;  // d2l prints per-token cross-entropy / num_steps (10)
  std::map<std::string, std::string> translations;

  explicit FraEngRun(const std::string& name) : file(dir / (name + ".h5")) {
    RunnerOptions o;
    o.output = file;
    REQUIRE(run_experiment(test::source_root + "/experiments/" + name + ".yaml", o) == 0);
    d2l_loss = ResultsReader(file).run("run").metrics.at("train_loss") / 10.0;
    const test::CommandOutput out = test::command_output(test::attnlab_exe + " translate " + file +
                                                         " \"go .\" \"i lost .\" \"he's calm .\" \"i'm home .\"");
    REQUIRE(out.status == 0);
    std::istringstream lines(out.text);
    for (std::string line; std::getline(lines, line);) {
      const auto arrow = line.find(" => ");
      if (arrow != std::string::npos) translations[line.substr(0, arrow)] = line.substr(arrow + 4);
    }
    REQUIRE(translations.size() == 4);
  }

  void require_exact(const std::string& english, const std::string& french) const {
    INFO(english << " => " << translations.at(english));
    CHECK(translations.at(english) == french);
  }
};

}  // namespace

TEST_CASE("seq2seq without attention on fra-eng (d2l 0.17 §9.7): loss <= 0.03, its first two sentences exact", "[reproduction][slow]") {
  const FraEngRun run("seq2seq-fra-eng");  // d2l printed loss 0.019
  INFO("final training loss (d2l's measure): " << run.d2l_loss);
  CHECK(run.d2l_loss <= 0.03);
  run.require_exact("go .", "va !");
  run.require_exact("i lost .", "j'ai perdu .");
}

TEST_CASE("the Transformer on fra-eng (d2l 0.17 §10.7): loss <= 0.05, three of d2l's four sentences exact", "[reproduction][slow]") {
  const FraEngRun run("transformer-fra-eng");  // d2l printed loss 0.03 and all four at BLEU 1
  INFO("final training loss (d2l's measure): " << run.d2l_loss);
  CHECK(run.d2l_loss <= 0.05);
  std::size_t exact = 0;
  for (const auto& [english, french] : std::vector<std::pair<std::string, std::string>>{
           {"go .", "va !"}, {"i lost .", "j'ai perdu ."}, {"he's calm .", "il est calme ."}, {"i'm home .", "je suis chez moi ."}}) {
    const std::string& got = run.translations.at(english);
    INFO(english << " => " << got);
    exact += got == french;
  }
  CHECK(exact >= 3);
}

TEST_CASE("d2l 1.0's Nadaraya-Watson with four kernels and four widths, on its own data, to 1e-5", "[reproduction][kernels][golden]") {
  // experiments/kernels.yaml against d2l 1.0's PyTorch code (tests/golden/make_d2l_kernels.py).
  const test::Golden golden("d2l_kernels.txt");
  test::TempDir tmp("attnlab-kernels");
  RunnerOptions o;
  o.output = tmp / "kernels.h5";
  REQUIRE(run_experiment(std::string(attn::test::paths::source_root) + "/experiments/kernels.yaml", o) == 0);
  const ResultsReader results(tmp / "kernels.h5");
  REQUIRE(results.run_ids().size() == 16);
  for (const std::string kernel : {"gaussian_kernel", "boxcar", "constant", "epanechikov"})
    for (const std::string width : {"0.1", "0.2", "0.5", "1"}) {
      const std::string id = "scoring-" + kernel + "_width-" + width;
      INFO(id);
      CHECK(test::max_scaled_error(*results.plot_data(id, "x_test"), golden["x_val"]) <= 1e-6);
      // d2l divides 0 by 0 where no key is in the kernel's reach (NaN); attnlab predicts 0 there.
      Tensor expected = golden["y_hat_" + kernel + "_w" + width];
      for (float& y : expected) y = std::isnan(y) ? 0.0f : y;
      CHECK(test::max_scaled_error(*results.plot_data(id, "y_prediction"), expected) <= 1e-5);
      if (width != "1") continue;
      Tensor weights = results.example(id, "example_0").maps.at(0).weights;  // [1, 1, 50 queries, 40 keys]
      weights.reshape({50, 40});
      CHECK(test::max_scaled_error(weights, golden["attention_" + kernel]) <= 1e-5);
    }
}

namespace {

// For each value of a swept key and each seed 1, 2, 3: the items of `total` the run got right
// (valid_accuracy x total), run "<key>-<value>_seed-<s>": as the pages' machine counted them, or
// within 2 items or 3% on a machine with other arithmetic (page_quotes.hpp).
void check_right_per_seed(const ResultsReader& results, const std::string& key, double total,
                          const std::map<std::string, std::vector<int>>& right) {
  for (const auto& [value, counts] : right)
    for (std::size_t s = 0; s < counts.size(); ++s) {
      const std::string id = key + "-" + value + "_seed-" + std::to_string(s + 1);
      INFO(id);
      const double got = results.run(id).metrics.at("valid_accuracy") * total;
      if (test::pages_arithmetic())
        CHECK(got == Approx(counts[s]));
      else  // another machine's arithmetic: training ends elsewhere, a few items either way
        CHECK(std::abs(got - counts[s]) <= std::max(2.0, 0.03 * total));
    }
}

}  // namespace

TEST_CASE("graph attention labels the karate club from its two leaders: the accuracies docs/concepts/graph-attention.md quotes", "[reproduction][graph]") {
  // experiments/gat-karate.yaml: 3 scoring functions x 3 seeds, members 0 and 33 labelled.
  test::TempDir tmp("attnlab-karate");
  RunnerOptions o;
  o.output = tmp / "gat-karate.h5";
  REQUIRE(run_experiment(std::string(attn::test::paths::source_root) + "/experiments/gat-karate.yaml", o) == 0);
  const ResultsReader results(tmp / "gat-karate.h5");
  // members of the 32 unlabelled ones put on the right side, per seed 1, 2, 3
  check_right_per_seed(results, "scoring", 32, {{"gat", {31, 29, 31}}, {"dot", {31, 31, 31}}, {"scaled_dot", {31, 31, 31}}});
  const std::string page = test::read_text(std::string(attn::test::paths::source_root) + "/docs/concepts/graph-attention.md");
  CHECK(test::quotes(page, "| `gat` | 0.9479 ± 0.0361 |"));
  CHECK(test::quotes(page, "| `dot` | 0.9688 ± 0.0000 |"));

  // attnlab predict on a member, as docs/running-experiments.md shows it
  const test::CommandOutput predicted = test::command_output(test::attnlab_exe + " predict " + (tmp / "gat-karate.h5") +
                                                             " --run scoring-gat_seed-1 --node 8 --attention");
  CHECK(predicted.status == 0);
  const std::string commands = test::read_text(std::string(attn::test::paths::source_root) + "/docs/running-experiments.md");
  CHECK(test::quotes(commands, "$ attnlab predict gat-karate.h5 --run scoring-gat_seed-1 --node 8 --attention\n" + predicted.text));
}

TEST_CASE("whole graphs classified by an encoder whose attention follows the edges: docs/concepts/graph-attention.md's figures",
          "[reproduction][graph]") {
  test::TempDir tmp("attnlab-graph-classes");
  RunnerOptions o;
  o.output = tmp / "graph-classification.h5";
  REQUIRE(run_experiment(std::string(attn::test::paths::source_root) + "/experiments/graph-classification.yaml", o) == 0);
  const ResultsReader results(tmp / "graph-classification.h5");
  // graphs of the 500 validation graphs (drawn per seed) classified right, per seed 1, 2, 3
  check_right_per_seed(results, "mask_edges", 500, {{"true", {500, 500, 500}}, {"false", {257, 254, 260}}});
  const std::string page = test::read_text(std::string(attn::test::paths::source_root) + "/docs/concepts/graph-attention.md");
  CHECK(test::quotes(page, "| `true` | 1.0000 ± 0.0000 |"));
  CHECK(test::quotes(page, "| `false` | 0.5140 ± 0.0060 |"));
  // with the mask, a node's weight off its edges is exactly 0 (the probe graphs are the same for every seed)
  Options defaults;
  const auto source = test::builtins().datasets.create("coloured_graphs", DatasetArgs{defaults, ""});
  Rng rng(1);
  const VectorBatch graph = std::get<VectorData>(source->load(rng)).probe.sets->batch({0});
  const AttentionMap map = results.example("mask_edges-true_seed-1", "example_0").maps.at(0);
  const std::size_t n = static_cast<std::size_t>(graph.lens(0));
  REQUIRE(map.weights.shape()[2] == n + 1);  // <cls> first
  double off_edges = 0.0, on_edges = 0.0;
  for (std::size_t l = 0; l < map.weights.shape()[0]; ++l)
    for (std::size_t h = 0; h < map.weights.shape()[1]; ++h)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) (graph.adjacency(0, i, j) ? on_edges : off_edges) += map.weights(l, h, i + 1, j + 1);
  CHECK(off_edges == 0.0);
  CHECK(on_edges > 0.0);
}

TEST_CASE("a character language model of The Time Machine: the perplexities docs/concepts/language-models.md quotes",
          "[reproduction][language]") {
  test::TempDir tmp("attnlab-char-lm");
  RunnerOptions o;
  o.output = tmp / "char-language-model.h5";
  REQUIRE(run_experiment(std::string(attn::test::paths::source_root) + "/experiments/char-language-model.yaml", o) == 0);
  const ResultsReader results(tmp / "char-language-model.h5");
  const std::string page = test::read_text(std::string(attn::test::paths::source_root) + "/docs/concepts/language-models.md");
  for (const std::string positional : {"none", "sinusoidal", "learned", "rope", "alibi", "t5_bias"}) {
    const auto& m = results.run("positional-" + positional).metrics;
    INFO(positional);
    CHECK(test::quotes(page, "| `" + positional + "` | " + test::fixed(m.at("valid_ppl"), 4) + " | " +
                                 test::fixed(m.at("valid_bits_per_token"), 4) + " |"));
  }
  CHECK(results.run("positional-learned").metrics.at("valid_ppl") < results.run("positional-none").metrics.at("valid_ppl"));
  CHECK(results.run("positional-rope").metrics.at("valid_ppl") < results.run("positional-learned").metrics.at("valid_ppl"));  // as d2l-neu at 128
}

TEST_CASE("train short, test long at a quarter of the context: d2l-neu's positional picture, as docs/reproductions.md quotes",
          "[reproduction][language][lengths]") {
  test::TempDir tmp("attnlab-extrapolation");
  RunnerOptions o;
  o.output = tmp / "positional-extrapolation-small.h5";
  REQUIRE(run_experiment(std::string(attn::test::paths::source_root) + "/experiments/positional-extrapolation-small.yaml", o) == 0);
  const ResultsReader results(tmp / "positional-extrapolation-small.h5");
  const std::string page = test::read_text(std::string(attn::test::paths::source_root) + "/docs/reproductions.md");
  std::map<std::string, std::vector<double>> ppl;  // scheme -> perplexity at 32, 64, 128
  for (const std::string positional : {"learned", "sinusoidal", "rope", "alibi", "none"}) {
    std::string row = "| `" + positional + "` |";
    for (const auto& [length, metrics] : results.length_metrics("positional-" + positional)) {
      ppl[positional].push_back(metrics.at("valid_ppl"));
      row += " " + test::fixed(metrics.at("valid_ppl"), 4) + " |";
    }
    INFO(positional);
    REQUIRE(ppl[positional].size() == 3);
    CHECK(test::quotes(page, row));
  }
  for (const std::string flat : {"alibi", "none"}) CHECK(std::abs(ppl[flat][2] / ppl[flat][0] - 1) < 0.10);
  for (const std::string other : {"learned", "sinusoidal", "alibi", "none"}) CHECK(ppl["rope"][0] < ppl[other][0]);
  for (const std::string grows : {"learned", "sinusoidal", "rope"}) CHECK(ppl[grows][2] >= 2 * ppl[grows][0]);
}

TEST_CASE("spoken digits from a voice never heard: the accuracies docs/concepts/speech-frames.md quotes", "[reproduction][speech]") {
  test::TempDir tmp("attnlab-spoken");
  RunnerOptions o;
  o.output = tmp / "spoken-digits.h5";
  REQUIRE(run_experiment(std::string(attn::test::paths::source_root) + "/experiments/spoken-digits.yaml", o) == 0);
  const ResultsReader results(tmp / "spoken-digits.h5");
  CHECK(results.run("pool-cls").metrics.at("valid_accuracy") * 90 == Approx(72));   // of en-029's 90 utterances
  CHECK(results.run("pool-mean").metrics.at("valid_accuracy") * 90 == Approx(74));
  const Tensor confusion = *results.plot_data("pool-mean", "confusion");
  CHECK(confusion(2, 4) == 9.0f);  // every "two" heard as "four"
  CHECK(confusion(3, 8) == 7.0f);  // 7 of the 9 "three" heard as "eight"
  const std::string page = test::read_text(std::string(attn::test::paths::source_root) + "/docs/concepts/speech-frames.md");
  CHECK(test::quotes(page, "| `cls` | 0.8000 |"));
  CHECK(test::quotes(page, "| `mean` | 0.8222 |"));
}

TEST_CASE("spoken digits spelled from their frames: a monotone alignment, as docs/concepts/speech-frames.md quotes",
          "[reproduction][speech]") {
  test::TempDir tmp("attnlab-spelling");
  RunnerOptions o;
  o.output = tmp / "spelling.h5";
  REQUIRE(run_experiment(std::string(attn::test::paths::source_root) + "/experiments/spoken-digits-spelling.yaml", o) == 0);
  const ResultsReader results(tmp / "spelling.h5");
  const auto& metrics = results.run("run").metrics;
  CHECK(metrics.at("valid_exact_match") * 200 == Approx(186));  // of en-029's 200 sequences of three digits
  CHECK(metrics.at("attention.cross.monotonicity") > 0.7);  // well above the 0.5 of no order
  const std::string page = test::read_text(std::string(attn::test::paths::source_root) + "/docs/concepts/speech-frames.md");
  CHECK(test::quotes(page, test::fixed(metrics.at("valid_exact_match"), 4) + " | " + test::fixed(metrics.at("valid_token_acc"), 4) +
                               " | " + test::fixed(metrics.at("attention.cross.monotonicity"), 4) + " | " +
                               test::fixed(metrics.at("attention.cross.effective_keys"), 4) + " |"));
  CHECK(test::quotes(test::read_text(std::string(attn::test::paths::source_root) + "/docs/reproductions.md"),
                     "valid_exact_match " + test::fixed(metrics.at("valid_exact_match"), 4) + ", monotonicity " +
                         test::fixed(metrics.at("attention.cross.monotonicity"), 4) + " |"));
}

TEST_CASE("docs/reproductions.md quotes the PyTorch twin's positional runs as bench/results/positional-twin.jsonl holds them",
          "[docs][reproduction]") {
  const auto table = attn::test::command_output("/usr/bin/python3 " + attn::test::source_root + "/bench/positional_compare.py --twin " +
                                                attn::test::source_root + "/bench/results/positional-twin.jsonl");
  REQUIRE(table.status == 0);
  REQUIRE_THAT(table.text, Catch::StartsWith("| scheme | seeds | twin |"));
  CHECK(attn::test::quotes(attn::test::read_text(attn::test::source_root + "/docs/reproductions.md"), table.text));
}

TEST_CASE("docs/reproductions.md quotes the comparison of attnlab's positional runs with their PyTorch twin as the committed runs give it",
          "[docs][reproduction]") {
  // bench/results/positional-attnlab.jsonl: `positional_compare.py --runs` of the full-size sweep's results file.
  const std::string bench = attn::test::source_root + "/bench/";
  const auto compared = attn::test::command_output("/usr/bin/python3 " + bench + "positional_compare.py " + bench +
                                                   "results/positional-attnlab.jsonl " + bench + "results/positional-twin.jsonl");
  INFO(compared.text);
  REQUIRE((compared.status == 0 || compared.status == 1));  // 1: a check fails, which the page must then say
  REQUIRE_THAT(compared.text, Catch::StartsWith("| scheme | context | attnlab | PyTorch twin | d2l-neu | twin check |"));
  const std::string page = attn::test::read_text(attn::test::source_root + "/docs/reproductions.md");
  std::istringstream lines(compared.text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) CHECK(attn::test::quotes(page, line));
}
