// Language models: text_corpus's windows of a text (The Time Machine, d2l's preprocessing) and
// language_model, a decoder-only Transformer: causal (a token's logits never depend on later
// tokens), tied to its embedding, trained to a perplexity well below the vocabulary's size.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include <xtensor/xsort.hpp>
#include <xtensor/xview.hpp>

#include "attnlab/attnlab.hpp"
#include "attnlab/footprint.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/models/text_generator.hpp"
#include "attnlab/gradcheck.hpp"
#include "lab/builtins.hpp"
#include "lab/results/results_format.hpp"
#include "golden.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::Golden;
using attn::test::max_scaled_error;

namespace {

Data load_text(const std::vector<std::pair<std::string, std::string>>& options) {
  Options o;
  for (const auto& [k, v] : options) o.set(k, v, "spec.yaml:4:3");
  auto source = test::builtins().datasets.create("text_corpus", DatasetArgs{o, test::source_root});
  Rng rng(1);
  return source->load(rng);
}

std::shared_ptr<Model> language_model(const Data& data, const std::vector<std::pair<std::string, std::string>>& options, ParamStore& store) {
  Options o;
  for (const auto& [k, v] : options) o.set(k, v, "spec.yaml:9:3");
  Rng init(3);
  return test::builtins().models.create("language_model", ModelArgs{test::builtins(), ParamScope(store, init), o, data});
}

}  // namespace

TEST_CASE("text_corpus: The Time Machine as d2l reads it, in windows whose labels are the next characters", "[data][language]") {
  const Data data = load_text({{"num_steps", "16"}, {"num_train", "1000"}, {"num_valid", "100"}});
  const auto& d = std::get<VectorData>(data);
  CHECK(d.kind == InputKind::tokens);
  CHECK(d.vocab.size() == 3 + 27);  // <pad> <bos> <eos>, then ' ' and 26 letters (d2l: 28 with its <unk>)
  CHECK(d.vocab.token(3) == " ");   // the most frequent character
  CHECK(d.vocab.token(4) == "e");
  REQUIRE(d.train.size() == 1000);
  CHECK(d.valid.size() == 100);
  CHECK(d.probe.size() == probe_size);
  const VectorBatch first = d.train.sets->batch({0, 1});
  std::string text;
  for (std::size_t t = 0; t < 16; ++t) text += d.vocab.token(first.tokens(0, t));
  CHECK(text == "the time machine");  // d2l's first line, preprocessed
  for (std::size_t t = 0; t < 15; ++t) {
    CHECK(d.train.labels(0, t) == first.tokens(0, t + 1));  // the label is the next token
    CHECK(first.tokens(1, t) == first.tokens(0, t + 1));    // windows start one token apart
  }
  CHECK(d.valid.sets->batch({0}).tokens(0, 0) == d.train.sets->batch({999}).tokens(0, 1));  // validation follows training

  const Data words = load_text({{"tokens", "word"}, {"num_steps", "4"}, {"num_train", "10"}, {"num_valid", "2"}});
  CHECK_THAT(std::get<VectorData>(words).train.sets->describe(0), Catch::StartsWith("the time machine by"));

  CHECK_THROWS_WITH(load_text({{"tokens", "bytes"}}), Catch::Contains("spec.yaml:4:3: option 'tokens' must be 'char'"));
  CHECK_THROWS_WITH(load_text({{"preprocess", "lower"}}), Catch::Contains("option 'preprocess' must be 'd2l'"));
  CHECK_THROWS_WITH(load_text({{"num_train", "10000000"}}),
                    Catch::Contains("holds 17") && Catch::Contains("need 10003128") && Catch::Contains("lower num_train, num_valid or num_steps"));
  CHECK_THROWS_WITH(load_text({{"path", "no-such-file.txt"}}), Catch::Contains("cannot read the text file no-such-file.txt"));
  CHECK_THROWS_WITH(load_text({{"path", "/dev/zero"}}), Catch::Contains("spec.yaml:4:3: /dev/zero is not a regular file"));
  test::TempDir dir("attnlab-text");
  std::ofstream(dir / "empty.txt") << "";
  CHECK_THROWS_WITH(load_text({{"path", dir / "empty.txt"}, {"num_train", "10"}}), Catch::Contains("spec.yaml:4:3: ") && Catch::Contains("holds 0 char tokens"));
  // a file too large for the memory a run may use is refused before it is read
  Options big;
  big.set("path", "/dev/null", "spec.yaml:4:3");
  std::ofstream(dir / "large.txt") << std::string(1 << 20, 'a');
  big.set("path", dir / "large.txt", "spec.yaml:4:3");
  const Footprint f = test::builtins().datasets.create("text_corpus", DatasetArgs{big, ""})->footprint();
  REQUIRE(f.size() == 2);
  CHECK(f[0].bytes > 32.0 * (1 << 20));  // its tokens, counted at the key that names the file
  CHECK(f[0].where == "spec.yaml:4:3");
}

// Two windows of tokens given by hand, labelled per position.
class HandWindows final : public VectorSets {
 public:
  explicit HandWindows(IntTensor tokens) : tokens_(std::move(tokens)) {}
  std::size_t size() const override { return tokens_.shape()[0]; }
  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    VectorBatch b;
    b.tokens = take_rows(tokens_, rows);
    b.lens = IntTensor::from_shape({rows.size()});
    b.lens.fill(static_cast<int>(tokens_.shape()[1]));
    return b;
  }
  std::string describe(std::size_t row) const override { return "window " + std::to_string(row); }

 private:
  IntTensor tokens_;
};

TEST_CASE("language_model is causal: a token's prediction does not depend on the tokens after it", "[models][language]") {
  const Data data = load_text({{"num_steps", "12"}, {"num_train", "64"}, {"num_valid", "8"}});
  const auto& d = std::get<VectorData>(data);
  IntTensor two = IntTensor::from_shape({2, 12});
  const VectorBatch window = d.train.sets->batch({0});
  for (std::size_t t = 0; t < 12; ++t) two(0, t) = two(1, t) = window.tokens(0, t);
  for (std::size_t t = 6; t < 12; ++t) two(1, t) = 5 + static_cast<int>(t);  // the second window's last six tokens changed
  VectorSplit split;
  split.sets = std::make_shared<HandWindows>(two);
  split.labels = xt::zeros<int>({std::size_t(2), std::size_t(12)}) + 3;
  for (const std::string block : {"attention_only", "gpt"})
    for (const std::string positional : {"none", "sinusoidal", "learned", "rope", "alibi", "t5_bias"}) {
      DYNAMIC_SECTION(block << ", positional " << positional) {
        ParamStore store;
        auto model = language_model(data, {{"d_model", "16"}, {"heads", "2"}, {"block", block}, {"positional", positional}}, store);
        const auto predicted = dynamic_cast<Classifier&>(*model).predict(split, {0, 1});
        REQUIRE(predicted.at(0).probabilities.size() == 12);
        for (std::size_t t = 0; t < 6; ++t)
          for (std::size_t v = 0; v < d.vocab.size(); ++v)
            CHECK(predicted[1].probabilities[t][v] == Approx(predicted[0].probabilities[t][v]).margin(1e-7));
        double moved = 0.0;  // position 6 reads the changed token: the test can fail
        for (std::size_t v = 0; v < d.vocab.size(); ++v) moved += std::abs(predicted[1].probabilities[6][v] - predicted[0].probabilities[6][v]);
        CHECK(moved > 1e-4);
      }
    }
}

TEST_CASE("language_model: the tied head reads the embedding; an untied one has its own; its option errors", "[models][language]") {
  const Data data = load_text({{"num_steps", "12"}, {"num_train", "64"}, {"num_valid", "8"}});
  ParamStore tied, untied, gpt;
  language_model(data, {{"d_model", "16"}, {"heads", "2"}}, tied);
  language_model(data, {{"d_model", "16"}, {"heads", "2"}, {"tied", "false"}}, untied);
  language_model(data, {{"d_model", "16"}, {"heads", "2"}, {"block", "gpt"}, {"mlp_hidden", "32"}}, gpt);
  const auto names = [](const ParamStore& s) {
    std::vector<std::string> out;
    for (const auto& [name, var] : s.items()) out.push_back(name);
    return out;
  };
  const std::vector<std::string> t = names(tied), u = names(untied), g = names(gpt);
  CHECK(std::count(t.begin(), t.end(), "output.W") == 0);
  CHECK(std::count(u.begin(), u.end(), "output.W") == 1);
  CHECK(std::count(g.begin(), g.end(), "block0.mlp1.W") == 1);
  CHECK(std::count(g.begin(), g.end(), "norm.gamma") == 1);
  const auto refused = [&](const std::vector<std::pair<std::string, std::string>>& options) {
    ParamStore s;
    try {
      language_model(data, options, s);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK_THAT(refused({{"d_model", "16"}, {"heads", "3"}}), Catch::Contains("spec.yaml:9:3: option 'd_model' (16) must be a multiple of 'heads' (3)"));
  CHECK_THAT(refused({{"block", "lstm"}}), Catch::Contains("option 'block' must be one of 'attention_only', 'gpt'"));
  CHECK_THAT(refused({{"mlp_hidden", "64"}}), Catch::Contains("option 'mlp_hidden' is for 'block: gpt'"));
  CHECK_THAT(refused({{"max_len", "8"}}), Catch::Contains("option 'max_len' (8) must be at least the dataset's num_steps (12)"));
  CHECK_THAT(refused({{"d_model", "12"}, {"heads", "4"}, {"positional", "rope"}}), Catch::Contains("a head's size must be even; it is 3 (a width of 12 over 4 heads)"));
  CHECK_THAT(refused({{"positional", "rope"}, {"positional_options.bse", "100"}}), Catch::Contains("bse"));
  CHECK_THAT(refused({{"positional", "rotary"}}), Catch::Contains("unknown positional scheme 'rotary'") && Catch::Contains("known: alibi, learned, none, rope, sinusoidal, t5_bias"));
}

TEST_CASE("language_model init: pytorch draws the attention's projections as nn.Linear does, U(±1/sqrt(fan_in))", "[models][language]") {
  const Data data = load_text({{"num_steps", "12"}, {"num_train", "64"}, {"num_valid", "8"}});
  ParamStore xavier, pytorch;
  language_model(data, {{"d_model", "128"}, {"heads", "4"}}, xavier);
  language_model(data, {{"d_model", "128"}, {"heads", "4"}, {"init", "pytorch"}}, pytorch);
  const auto largest = [](const ParamStore& s, const std::string& name) { return static_cast<double>(xt::amax(xt::abs(s.get(name).value()))()); };
  // 128 x 128: PyTorch's bound 1/sqrt(128) = 0.0884; Xavier's sqrt(6/256) = 0.153. Of 16384
  // draws the largest lies within 0.1% of its bound.
  for (const std::string w : {"block0.attention.W_q.W", "block0.attention.W_k.W", "block0.attention.W_v.W", "block1.attention.W_o.W"}) {
    INFO(w);
    CHECK(largest(pytorch, w) <= 1.0 / std::sqrt(128.0));
    CHECK(largest(pytorch, w) > 0.99 / std::sqrt(128.0));
    CHECK(largest(xavier, w) > 0.99 * std::sqrt(6.0 / 256.0));
  }
  ParamStore s;
  CHECK_THROWS_WITH(language_model(data, {{"init", "kaiming"}}, s), Catch::Contains("option 'init' must be one of 'xavier', 'pytorch'"));
}

TEST_CASE("language_model and AdamW take the steps of the PyTorch twin, for each positional scheme", "[models][language][golden]") {
  // bench/positional_twin.py's model (the twin of the positional reproduction) at 16 wide, from
  // the same initial parameters, on the same batch: its losses and final parameters
  // (tests/golden/make_golden.py, language_model_golden).
  const Golden g("language_model.txt");
  const Data data = load_text({{"num_steps", "16"}, {"num_train", "8"}, {"num_valid", "8"}});
  const VectorBatch batch = std::get<VectorData>(data).train.sets->batch({0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(max_scaled_error(xt::cast<float>(batch.tokens), g["tokens"]) == 0.0);  // the same windows and vocabulary
  for (const std::string scheme : {"learned", "sinusoidal", "rope", "alibi", "none"}) {
    DYNAMIC_SECTION(scheme) {
      ParamStore store;
      auto model = language_model(data, {{"d_model", "16"}, {"heads", "2"}, {"layers", "2"}, {"block", "attention_only"}, {"max_len", "32"},
                                         {"positional", scheme}}, store);
      for (const auto& [name, var] : store.items()) var.mutable_value() = g[scheme + ".init." + name];  // (throws if the twin has no such)
      CHECK(store.size() == (scheme == "learned" ? 10u : 9u));
      Options o;
      o.set("weight_decay", "0");
      auto adamw = test::builtins().optimizers.create("adamw", OptimizerArgs{o, store.items()});
      Rng rng(1);
      for (std::size_t step = 0; step < 5; ++step) {
        store.zero_grad();
        const LossResult r = model->loss({0, 1, 2, 3, 4, 5, 6, 7}, TrainingStep{rng});
        r.loss.backward();
        adamw->step(0.01f);
        CHECK(r.sum / r.count == Approx(g[scheme + ".losses"](step)).epsilon(1e-5));
      }
      for (const auto& [name, var] : store.items()) {
        INFO(name);
        CHECK(max_scaled_error(var.value(), g[scheme + ".final." + name]) < 1e-5);
      }
    }
  }
}

TEST_CASE("language_model learns The Time Machine: perplexity and bits per character in the history", "[models][language][slow]") {
  test::TempDir dir("attnlab-lm");
  std::ofstream(dir / "lm.yaml") << "name: lm\ndataset:\n  name: text_corpus\n  path: " << test::source_root
                                   << "/datasets/timemachine/timemachine.txt\n  num_steps: 32\n  num_train: 4096\n  num_valid: 256\n"
                                      "model:\n  name: language_model\n  d_model: 32\n  heads: 2\ntraining:\n  optimizer: adam\n"
                                      "  lr: 0.003\n  epochs: 2\n  batch_size: 32\n";
  const auto run = test::command_output(test::attnlab_exe + " run " + (dir / "lm.yaml") + " --output " + (dir / "lm.h5") + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.text, Catch::Contains("valid_ppl") && Catch::Contains("valid_bits_per_token") && Catch::Contains("decoder_self"));
  CHECK_THAT(run.text, !Catch::Contains("per class"));  // next tokens are not classes to compare
  const ResultsReader results(dir / "lm.h5");
  const auto& m = results.run("run").metrics;
  CHECK(m.at("valid_ppl") == Approx(std::exp(m.at("valid_loss"))));
  CHECK(m.at("valid_bits_per_token") == Approx(m.at("valid_loss") / std::log(2.0)));
  CHECK(m.at("valid_ppl") < 15.0);  // a unigram model of these 27 characters is at 16.9
  CHECK(m.at("valid_ppl") > 1.0);
  // predict: the likeliest tokens after typed text; a character the text never had is refused
  const auto next = test::command_output(test::attnlab_exe + " predict " + (dir / "lm.h5") + " \"the time machin\" --attention 2>&1");
  INFO(next.text);
  CHECK(next.status == 0);
  CHECK_THAT(next.text, Catch::StartsWith("\"the time machin\": next token '") && Catch::Contains("decoder_self attention of n"));
  const auto upper = test::command_output(test::attnlab_exe + " predict " + (dir / "lm.h5") + " \"THE\" 2>&1");
  CHECK(upper.status == 2);
  CHECK_THAT(upper.text, Catch::Contains("token 'T' is not in the vocabulary"));
  const auto example = test::command_output(test::attnlab_exe + " predict " + (dir / "lm.h5") + " --example 3 2>&1");
  CHECK_THAT(example.text, Catch::StartsWith("validation example 3: next token '"));
  // generate: the prompt and what follows, the same for the same seed; bad requests refused before any work
  const std::string gen = test::attnlab_exe + " generate " + (dir / "lm.h5") + " --prompt \"the time \"";
  const auto one = test::command_output(gen + " --steps 40 --seed 4 2>/dev/null"), again = test::command_output(gen + " --steps 40 --seed 4 2>/dev/null");
  INFO(one.text);
  CHECK(one.status == 0);
  CHECK_THAT(one.text, Catch::StartsWith("the time "));
  CHECK(one.text.size() == std::string("the time ").size() + 40 + 1);
  CHECK(one.text == again.text);
  CHECK_THAT(one.text, !Catch::Contains("<eos>") && !Catch::Contains("<pad>") && !Catch::Contains("<bos>"));  // never in a text
  // on standard error: the cache's size; past the trained windows (32 tokens), a note
  const auto told = test::command_output(gen + " --steps 40 --seed 4 2>&1 >/dev/null");
  CHECK_THAT(told.text, Catch::Contains("note: the model was trained on windows of 32 tokens; this text reaches position 47") &&
                            Catch::Contains("key/value cache: 24.0 KB (48 positions x 2 key/value heads of 16, keys and values, every layer)"));
  const auto looked = test::command_output(gen + " --steps 3 --attention 2>&1");
  CHECK_THAT(looked.text, Catch::Contains("where each written token's position looked") && Catch::Contains("'@"));
  for (const auto& [extra, message] : std::vector<std::pair<std::string, std::string>>{
           {" --temperature 0", "--temperature must be in [1e-06, 100]"},
           {" --temperature nan", "--temperature must be"},
           {" --top-k 1000", "--top-k"},
           {" --steps 100000000", "--steps"},
           {" --steps 510", "the model's positions stop at 512"}}) {
    const auto bad = test::command_output(gen + extra + " 2>&1");
    INFO(extra << ": " << bad.text);
    CHECK(bad.status == 2);
    CHECK_THAT(bad.text, Catch::Contains(message));
  }
  const auto unknown = test::command_output(test::attnlab_exe + " generate " + (dir / "lm.h5") + " --prompt THE 2>&1");
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.text, Catch::Contains("--prompt: token 'T' is not in the vocabulary"));
}

TEST_CASE("generate: the key/value cache gives what the whole sequence gives; sampling follows its options", "[models][language]") {
  const Data data = load_text({{"num_steps", "24"}, {"num_train", "64"}, {"num_valid", "8"}});
  const auto& d = std::get<VectorData>(data);
  const std::vector<int> prompt = d.vocab.encode({"t", "h", "e", " "});
  for (const std::string block : {"attention_only", "gpt"})
    for (const std::string positional : {"learned", "rope", "alibi", "t5_bias", "rope, kv_heads 1"}) {
    DYNAMIC_SECTION(block << ", positional " << positional) {
      ParamStore store;
      const bool grouped = positional == "rope, kv_heads 1";  // multi-query attention: one key/value head
      auto model = language_model(data, {{"d_model", "16"}, {"heads", "2"}, {"block", block}, {"positional", grouped ? "rope" : positional},
                                         {"kv_heads", grouped ? "1" : "2"}}, store);
      auto& generator = dynamic_cast<TextGenerator&>(*model);
      CHECK(generator.max_positions() == (positional == "learned" ? 512u : 0u));  // rope, alibi and t5_bias have no table
      SamplingOptions greedy;
      greedy.steps = 12, greedy.temperature = 1e-6f;
      Rng rng(5);
      const Generation g = generator.generate(prompt, greedy, rng);
      REQUIRE(g.tokens.size() == 12);
      CHECK(g.cache_keys == Shape{grouped ? 1u : 2u, 15, 8});  // [kv heads, positions cached, head size]
      CHECK(g.cache_bytes == sizeof(float) * 2 * 2 * (grouped ? 1 : 2) * 15 * 8);  // keys and values of 2 layers
      // the whole sequence at once: at every written position, the argmax is the token written,
      // and that position's attention is the cached step's
      IntTensor all = IntTensor::from_shape({1, 24});
      all.fill(3);
      for (std::size_t i = 0; i < prompt.size(); ++i) all(0, i) = prompt[i];
      for (std::size_t s = 0; s < 12; ++s) all(0, prompt.size() + s) = g.tokens[s];
      VectorSplit split;
      split.sets = std::make_shared<HandWindows>(all);
      split.labels = xt::zeros<int>({std::size_t(1), std::size_t(24)});
      const auto whole = dynamic_cast<Classifier&>(*model).predict(split, {0}).at(0);
      const Tensor& w = whole.attention.maps.at(0).weights;  // [layer, head, 24, 24]
      for (std::size_t s = 0; s < 12; ++s) {
        const std::size_t at = prompt.size() + s - 1;
        INFO("step " << s);
        const std::vector<float>& probs = whole.probabilities[at];  // the likeliest of the tokens a text has (not <pad> <bos> <eos>)
        CHECK(static_cast<int>(std::max_element(probs.begin() + 3, probs.end()) - probs.begin()) == g.tokens[s]);
        for (std::size_t l = 0; l < w.shape()[0]; ++l)
          for (std::size_t h = 0; h < w.shape()[1]; ++h)
            for (std::size_t k = 0; k <= at; ++k) CHECK(g.attention(l, h, s, k) == Approx(w(l, h, at, k)).margin(1e-5));
      }
      // the same seed writes the same text; top_k 1 is greedy whatever the temperature
      SamplingOptions hot;
      hot.steps = 20, hot.temperature = 50.0f;
      Rng a(9), b(9), c(10);
      CHECK(generator.generate(prompt, hot, a).tokens == generator.generate(prompt, hot, b).tokens);
      CHECK(generator.generate(prompt, hot, a).tokens != generator.generate(prompt, hot, c).tokens);
      hot.top_k = 1, hot.steps = 12;
      CHECK(generator.generate(prompt, hot, c).tokens == g.tokens);
    }
    }
}

TEST_CASE("sample_token: temperature and top-k shape the draw", "[models][language]") {
  const std::vector<float> logits = {0.0f, 2.0f, 1.0f, -1.0f};
  SamplingOptions o;
  o.top_k = 2;
  Rng rng(1);
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 4000; ++i) ++counts[static_cast<std::size_t>(sample_token(logits.data(), 4, o, rng))];
  CHECK(counts[0] == 0);  // outside the top 2
  CHECK(counts[3] == 0);
  CHECK(static_cast<double>(counts[1]) / 4000.0 == Approx(std::exp(2.0) / (std::exp(2.0) + std::exp(1.0))).margin(0.03));
  o.top_k = 0, o.temperature = 1e-6f;
  for (int i = 0; i < 100; ++i) CHECK(sample_token(logits.data(), 4, o, rng) == 1);
}

TEST_CASE("generate and predict read a prompt as the model's tokens: any UTF-8 character, never a control character",
          "[models][language][cli]") {
  test::TempDir dir("attnlab-lm-utf8");
  std::string text;
  for (int i = 0; i < 40; ++i) text += "héé à la plage, l'été 😀 ; ";
  std::ofstream(dir / "text.txt") << text;
  std::ofstream(dir / "lm.yaml") << "name: lm\ndataset:\n  name: text_corpus\n  path: text.txt\n  preprocess: none\n  num_steps: 16\n"
                                    "  num_train: 64\n  num_valid: 8\nmodel:\n  name: language_model\n  d_model: 16\n  heads: 2\n  layers: 1\n"
                                    "  positional: alibi\ntraining:\n  epochs: 1\n  batch_size: 32\n";
  const auto run = test::command_output(test::attnlab_exe + " run " + (dir / "lm.yaml") + " --output " + (dir / "lm.h5") + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  const std::string file = dir / "lm.h5";
  for (const std::string prompt : {"hé", "😀 l", "été"}) {
    const auto written = test::command_output(test::attnlab_exe + " generate " + file + " --prompt '" + prompt + "' --steps 5 2>/dev/null");
    INFO(prompt << ": " << written.text);
    CHECK(written.status == 0);
    CHECK_THAT(written.text, Catch::StartsWith(prompt));
    CHECK(test::command_output(test::attnlab_exe + " predict " + file + " '" + prompt + "' 2>&1").status == 0);
  }
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {" --prompt \"$(printf 'h\\033[31m')\"", "--prompt: the text holds a control character (U+001B): type text only"},
           {" --prompt \"$(printf 'h\\377')\"", "--prompt: the text is not valid UTF-8 (byte 2)"},
           {" --prompt hé --run ''", "unknown run ''"},
           {" --prompt hé --steps 100000 --attention", "--attention keeps the weights of every written token over every position before it"}}) {
    const auto refused = test::command_output(test::attnlab_exe + " generate " + file + args + " 2>&1");
    INFO(args << ": " << refused.text);
    CHECK(refused.status == 2);
    CHECK_THAT(refused.text, Catch::Contains(says));
    CHECK(refused.text.find('\033') == std::string::npos);
  }
}
