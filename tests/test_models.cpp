// Models: d2l's Nadaraya-Watson against the same run in PyTorch, sequence models that learn the
// reverse task, decoding (greedy and beam search) and the attention maps they record.
#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/models/sequence_model.hpp"
#include "attnlab/training/trainer.hpp"
#include "golden.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;
using attn::test::reverse_task;
using attn::test::Golden;

TEST_CASE("Nadaraya-Watson reproduces d2l's PyTorch run: learned w and both test MSEs to 1e-4", "[models][nw][d2l][golden]") {
  const Golden g("nadaraya_watson.txt");
  RegressionData d{g["x_train"], g["y_train"], g["x_test"], g["y_truth"]};
  const Data data = d;
  for (const std::string scoring : {"gaussian", "gaussian_learned"}) {
    DYNAMIC_SECTION(scoring) {
      ParamStore store;
      Rng rng(0);
      Options o;
      o.set("scoring", scoring);
      auto model = builtins().models.create("nadaraya_watson", ModelArgs{builtins(), ParamScope(store, rng), o, data});
      TrainConfig c;
      c.optimizer = {"sgd", {}};
      c.lr = 0.5f;
      c.epochs = 5;
      if (scoring == "gaussian") {
        CHECK_FALSE(model->trainable());
        CHECK(store.size() == 0);
        CHECK(model->evaluate(true).at("test_mse") == Approx(g["test_mse_nonparametric"]()).margin(1e-4));
      } else {
        store.get("attention.scoring.w").mutable_value() = g["w_init"];
        Trainer t(*model, store, builtins(), c, 1);
        REQUIRE(t.run() == RunStatus::finished);
        for (std::size_t e = 0; e < 5; ++e)
          CHECK(t.history()[e].train_loss == Approx(g["train_losses"](e)).epsilon(1e-4));
        CHECK(store.get("attention.scoring.w").item() == Approx(g["w"](0)).margin(1e-4));
        CHECK(model->evaluate(true).at("test_mse") == Approx(g["test_mse_parametric"]()).margin(1e-4));
      }
      const auto maps = model->record_attention({0});
      REQUIRE(maps.size() == 1);
      CHECK(maps[0].maps[0].weights.shape() == std::vector<std::size_t>{1, 1, 50, 50});
      CHECK(maps[0].maps[0].queries.size() == 50);
    }
  }
}

TEST_CASE("sequence models learn to reverse digit strings and show it in their attention", "[models][seq2seq][slow]") {
  const Data data = reverse_task(1000);
  struct Case { std::string name, model; std::vector<std::pair<std::string, std::string>> options; std::size_t epochs; };
  const std::vector<Case> cases = {
      {"seq2seq, Bahdanau attention, gru", "seq2seq", {{"embed", "16"}, {"hidden", "32"}, {"layers", "1"}, {"dropout", "0"}}, 25},
      {"seq2seq, dot attention, lstm", "seq2seq", {{"embed", "16"}, {"hidden", "32"}, {"layers", "1"}, {"attention.scoring", "dot"}, {"cell", "lstm"}}, 25},
      {"seq2seq without attention", "seq2seq", {{"embed", "16"}, {"hidden", "32"}, {"layers", "1"}, {"attention", "none"}}, 25},
      {"transformer", "transformer", {{"d_model", "32"}, {"ffn_hidden", "64"}, {"heads", "4"}, {"layers", "1"}, {"dropout", "0"}}, 25},
      {"encoder_tagger, self-attention", "encoder_tagger", {{"d_model", "32"}, {"layers", "2"}, {"positional", "learned"}}, 60},
      {"encoder_tagger, convolution of width 9", "encoder_tagger", {{"encoder", "convolution"}, {"kernel", "9"}, {"d_model", "32"}, {"layers", "2"}, {"positional", "learned"}}, 25},
  };
  for (const Case& k : cases) {
    DYNAMIC_SECTION(k.name) {
      ParamStore store;
      Rng rng(2);
      Options o;
      for (const auto& [key, v] : k.options) o.set(key, v);
      auto model = builtins().models.create(k.model, ModelArgs{builtins(), ParamScope(store, rng), o, data});
      o.require_all_read("model");
      TrainConfig c;
      c.lr = 0.01f;
      c.epochs = k.epochs;
      c.batch_size = 32;
      c.clip = 1.0;
      c.eval_every = 100;
      Trainer t(*model, store, builtins(), c, 3);
      REQUIRE(t.run() == RunStatus::finished);
      const Metrics m = model->evaluate(true);
      INFO("train loss " << t.history().back().train_loss << ", valid exact match " << m.at("valid_exact_match"));
      CHECK(t.history().back().train_loss < t.history().front().train_loss);
      CHECK(m.at("valid_token_acc") > 0.6);

      auto* seq = dynamic_cast<SequenceModel*>(model.get());
      REQUIRE(seq);
      // Beam search of width 1 is greedy; a wider beam scores at least as well.
      const std::vector<int> src = {5, 9, 3, 7};
      const Translation greedy = seq->translate(src, {7, 1, 0.75});
      const Translation beam = seq->translate(src, {7, 4, 0.0});
      CHECK(beam.log_prob >= greedy.log_prob - 1e-5);

      const auto ex = model->record_attention({0, 1});
      REQUIRE(ex.size() == 2);
      for (const AttentionMap& map : ex[0].maps) {
        INFO(map.name);
        REQUIRE(map.weights.dimension() == 4);
        CHECK(map.weights.shape()[2] == map.queries.size());
        CHECK(map.weights.shape()[3] == map.keys.size());
        for (std::size_t l = 0; l < map.weights.shape()[0]; ++l)
          for (std::size_t h = 0; h < map.weights.shape()[1]; ++h)
            for (std::size_t q = 0; q < map.weights.shape()[2]; ++q) {
              double total = 0;
              for (std::size_t j = 0; j < map.weights.shape()[3]; ++j) total += map.weights(l, h, q, j);
              CHECK(total == Approx(1.0).margin(1e-4));
            }
      }
    }
  }
}

TEST_CASE("models refuse data of the wrong kind and unknown options", "[models][errors]") {
  const Data seq = reverse_task(10);
  ParamStore store;
  Rng rng(1);
  Options none;
  CHECK_THROWS_WITH(builtins().models.create("nadaraya_watson", ModelArgs{builtins(), ParamScope(store, rng), none, seq}),
                    Catch::Contains("needs a regression dataset"));
  Options bad;
  bad.set("attention.scoring", "adittive", "spec.yaml:8:16");
  CHECK_THROWS_WITH(builtins().models.create("seq2seq", ModelArgs{builtins(), ParamScope(store, rng, "m"), bad, seq}),
                    Catch::Contains("did you mean 'additive'?"));
  Options typo;
  typo.set("attention.scorng", "dot", "spec.yaml:8:5");
  CHECK_THROWS_WITH(builtins().models.create("seq2seq", ModelArgs{builtins(), ParamScope(store, rng, "n"), typo, seq}),
                    Catch::Contains("spec.yaml:8:5: unknown option 'scorng'") && Catch::Contains("did you mean 'scoring'?"));
}

TEST_CASE("the Transformer's key/value cache decodes as re-running the decoder over the prefix", "[models][decoding]") {
  const Data data = reverse_task(200);
  for (const std::string positional : {"sinusoidal", "learned", "rope", "kv_heads 2", "kv_heads 1"}) {
    DYNAMIC_SECTION(positional << " positions") {
      const bool grouped = positional.rfind("kv_heads", 0) == 0;  // grouped-query and multi-query attention, sinusoidal
      // Two models with the same weights (same seed), one decoding with the cache, one without.
      std::vector<ParamStore> stores(2);
      std::vector<std::shared_ptr<Model>> models;
      for (const char* cache : {"true", "false"}) {
        Rng rng(5);
        Options o;
        for (const auto& [key, v] : std::vector<std::pair<std::string, std::string>>{
                 {"d_model", "16"}, {"ffn_hidden", "32"}, {"heads", "4"}, {"layers", "2"}, {"positional", grouped ? "sinusoidal" : positional},
                 {"kv_heads", grouped ? positional.substr(9) : "4"}, {"kv_cache", cache}})
          o.set(key, v);
        models.push_back(builtins().models.create("transformer", ModelArgs{builtins(), ParamScope(stores[models.size()], rng), o, data}));
      }
      const std::vector<int> src = {5, 9, 3, 7, 4};
      for (const std::size_t beam : {1, 4}) {
        DecodeOptions options;
        options.max_len = 30, options.beam = beam, options.stop_at_eos = false;  // 30 steps, whatever is decoded
        const Translation cached = dynamic_cast<SequenceModel&>(*models[0]).translate(src, options);
        const Translation full = dynamic_cast<SequenceModel&>(*models[1]).translate(src, options);
        INFO("beam " << beam);
        CHECK(cached.tokens == full.tokens);
        CHECK(cached.log_prob == Approx(full.log_prob).epsilon(1e-6));
        // greedy's cache: per block, keys and values of 30 steps and of the source's 7 positions
        // (num_steps), kv_heads heads of 4; none without it
        const std::size_t kv = grouped ? std::stoul(positional.substr(9)) : 4;
        if (beam == 1) CHECK(cached.cache_bytes == sizeof(float) * 2 * 2 * kv * 4 * (30 + 7));
        CHECK(full.cache_bytes == 0);
        REQUIRE(cached.attention.size() == full.attention.size());
        for (std::size_t m = 0; m < cached.attention.size(); ++m) {
          const Tensor &a = cached.attention[m].second, &b = full.attention[m].second;
          INFO(cached.attention[m].first);
          REQUIRE(a.shape() == b.shape());
          const float difference = xt::amax(xt::abs(a - b))();
          INFO("largest difference " << std::scientific << difference);
          // float32 weights of at most 1, from products of other shapes (one row against the
          // whole prefix), so OpenBLAS sums in another order: a few ulps (1.8e-6 seen on AMD EPYC).
          CHECK(difference < 1e-5f);
        }
      }
    }
  }
}

TEST_CASE("beam search of a batch gives each sentence what beam search of that sentence alone gives", "[models][decoding]") {
  const Data data = reverse_task(200);
  const SequenceData& seq_data = std::get<SequenceData>(data);
  for (const char* model : {"transformer", "seq2seq"}) {
    DYNAMIC_SECTION(model) {
      ParamStore store;
      Rng rng(7);
      Options o;
      if (std::string(model) == "transformer")
        for (const auto& [key, v] : std::vector<std::pair<std::string, std::string>>{{"d_model", "16"}, {"ffn_hidden", "32"}, {"heads", "4"}})
          o.set(key, v);
      const auto made = builtins().models.create(model, ModelArgs{builtins(), ParamScope(store, rng), o, data});
      auto& seq = dynamic_cast<SequenceModel&>(*made);
      // sentences of different lengths, so that their beams finish at different steps
      const std::vector<std::vector<int>> sources = {{5, 9, 3, 7, 4}, {6}, {3, 3, 8}, {12, 4, 5, 6, 7, 8}};
      for (const bool stop_at_eos : {true, false}) {
        DecodeOptions options;
        options.max_len = 12, options.beam = 3, options.alpha = 0.75, options.stop_at_eos = stop_at_eos;
        const std::vector<Translation> batch = seq.beam_search(token_sources(sources, seq_data.num_steps), options);
        REQUIRE(batch.size() == sources.size());
        for (std::size_t i = 0; i < sources.size(); ++i) {
          INFO("sentence " << i << (stop_at_eos ? "" : ", all steps"));
          const Translation alone = seq.translate(sources[i], options);
          CHECK(batch[i].tokens == alone.tokens);
          CHECK(batch[i].log_prob == Approx(alone.log_prob).epsilon(1e-5));
          REQUIRE(batch[i].attention.size() == alone.attention.size());
          for (std::size_t m = 0; m < alone.attention.size(); ++m)
            CHECK(xt::amax(xt::abs(batch[i].attention[m].second - alone.attention[m].second))() < 1e-5f);
        }
      }
    }
  }
}
