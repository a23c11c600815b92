// d2l's printed results, reproduced end to end (recorded in docs/reproductions.md).
#include <catch2/catch.hpp>

#include "lab/builtins.hpp"
#include "attnlab/models/metrics.hpp"
#include "attnlab/models/sequence_model.hpp"
#include "attnlab/training/trainer.hpp"

using namespace attn;

TEST_CASE("Bahdanau attention on fra-eng (d2l 0.17 §10.4): loss <= 0.03 and d2l's translations", "[reproduction][slow]") {
  Registries r;
  register_builtins(r);
  Options data_options;
  data_options.set("path", "datasets/fra-eng/fra.txt");
  data_options.set("num_train", "600");
  data_options.set("num_steps", "10");
  Rng data_rng(0);
  const Data data = r.datasets.create("parallel_corpus", DatasetArgs{data_options, ATTNLAB_SOURCE_ROOT})->load(data_rng);

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
