// Training: optimizers against PyTorch, clipping, early stopping, divergence, and checkpoints
// that resume bit-identically.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include <unistd.h>

#include "lab/results/results_format.hpp"
#include "attnlab/training/trainer.hpp"
#include "golden.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;
using attn::test::randn;
using attn::test::Golden;
using attn::test::max_scaled_error;

namespace {

// A small seq2seq-with-attention run on the reverse task: model, data and parameters.
struct SmallRun {
  Options data_options, model_options;
  Data data;
  ParamStore store;
  Rng rng{7};
  std::shared_ptr<Model> model;
  explicit SmallRun(const std::string& model_name = "seq2seq") {
    data_options.set("task", "reverse");
    data_options.set("num_train", "96");
    data_options.set("num_valid", "16");
    data_options.set("num_steps", "6");
    data_options.set("max_len", "4");
    Rng data_rng(3);
    data = builtins().datasets.create("sequence_task", DatasetArgs{data_options, ""})->load(data_rng);
    model_options.set("embed", "8");
    model_options.set("hidden", "8");
    model_options.set("layers", "1");
    model_options.set("dropout", "0.1");
    if (model_name == "transformer") {
      model_options = Options();
      model_options.set("d_model", "8");
      model_options.set("ffn_hidden", "16");
      model_options.set("heads", "2");
      model_options.set("layers", "1");
    }
    model = builtins().models.create(model_name, ModelArgs{builtins(), ParamScope(store, rng), model_options, data});
  }
};

TrainConfig small_config(std::size_t epochs) {
  TrainConfig c;
  c.lr = 0.01f;
  c.epochs = epochs;
  c.batch_size = 32;
  c.clip = 1.0;
  return c;
}

std::string temp_h5() {
  char name[] = "/tmp/attnlab-ckpt-XXXXXX";
  const int fd = mkstemp(name);
  close(fd);
  return name;
}

}  // namespace

TEST_CASE("Adam and SGD with momentum take PyTorch's steps", "[training][optimizers][golden]") {
  const Golden g("optimizers.txt");
  for (const std::string name : {"adam", "sgd_momentum"}) {
    DYNAMIC_SECTION(name) {
      Var w = leaf(g[name + ".W0"]);
      const Var x = constant(g["x"]), t = constant(g["t"]);
      Options o;
      if (name == "sgd_momentum") o.set("momentum", "0.9");
      auto opt = builtins().optimizers.create(name == "adam" ? "adam" : "sgd", OptimizerArgs{o, {{"W", w}}, 0.1f});
      for (int step = 0; step < 3; ++step) {
        w.zero_grad();
        Tensor xv = x.value();
        xv.reshape({4, 1});
        sum(square(reshape(matmul(w, constant(xv)), {3}) - t)).backward();
        opt->step();
      }
      CHECK(max_scaled_error(w.value(), g[name + ".W3"]) < 1e-5);
    }
  }
}

TEST_CASE("global-norm clipping scales every gradient by max_norm / norm", "[training]") {
  Var a = leaf(Tensor{3.0f}), b = leaf(Tensor{4.0f});
  sum(a * a * 0.5f + b * b * 0.5f).backward();  // grads 3 and 4: norm 5
  CHECK(clip_grad_norm({{"a", a}, {"b", b}}, 1.0) == Approx(5.0));
  CHECK(a.grad()(0) == Approx(0.6f));
  CHECK(b.grad()(0) == Approx(0.8f));
  CHECK(clip_grad_norm({{"a", a}, {"b", b}}, 10.0) == Approx(1.0));  // below the limit: unchanged
  CHECK(a.grad()(0) == Approx(0.6f));
}

TEST_CASE("a run resumed from a checkpoint ends bit-identical to an uninterrupted one", "[training][checkpoint]") {
  SmallRun whole;
  Trainer straight(*whole.model, whole.store, builtins(), small_config(4), 11);
  REQUIRE(straight.run() == RunStatus::finished);

  const std::string path = temp_h5();
  {
    SmallRun first;
    Trainer t(*first.model, first.store, builtins(), small_config(4), 11);
    int epochs = 0;
    CHECK(t.run([&](const EpochRecord&) { return ++epochs < 2; }) == RunStatus::interrupted);
    write_trainer_state(path, t.state(), "config");
  }
  SmallRun second;  // fresh parameters (another initialisation), replaced by the checkpoint's
  second.rng = Rng(99);
  Trainer resumed(*second.model, second.store, builtins(), small_config(4), 11);
  resumed.restore(read_trainer_state(path));
  CHECK(resumed.epochs_done() == 2);
  REQUIRE(resumed.run() == RunStatus::finished);

  for (std::size_t i = 0; i < whole.store.size(); ++i) {
    INFO(whole.store.items()[i].first);
    CHECK((whole.store.items()[i].second.value() == second.store.items()[i].second.value()));
  }
  for (std::size_t e = 0; e < 4; ++e) {
    CHECK(straight.history()[e].train_loss == resumed.history()[e].train_loss);
    CHECK(straight.history()[e].metrics == resumed.history()[e].metrics);
  }
  std::remove(path.c_str());
}

TEST_CASE("early stopping stops after `patience` evaluations without improvement, restoring the best", "[training]") {
  SmallRun run;
  TrainConfig c = small_config(30);
  c.lr = 0.3f;  // too large: the validation loss soon stops improving
  c.early_stopping = "valid_loss";
  c.patience = 2;
  Trainer t(*run.model, run.store, builtins(), c, 5);
  const RunStatus s = t.run();
  if (s == RunStatus::early_stopped) {
    double best = 1e300;
    std::size_t best_epoch = 0;
    for (const auto& r : t.history())
      if (r.metrics.at("valid_loss") < best) best = r.metrics.at("valid_loss"), best_epoch = r.epoch;
    CHECK(t.history().size() == best_epoch + 2);
    CHECK(run.model->evaluate(false).at("valid_loss") == Approx(best).epsilon(1e-6));
  } else {
    CHECK(s == RunStatus::finished);  // it kept improving for all 30 epochs
  }
  CHECK(larger_is_better("valid_bleu"));
  CHECK_FALSE(larger_is_better("valid_loss"));
}

TEST_CASE("a loss that becomes NaN or infinite stops the run as diverged", "[training]") {
  // Nadaraya-Watson with a learned width and an absurd step: w^2 overflows, the loss is NaN.
  Options none;
  Rng data_rng(1);
  const Data data = builtins().datasets.create("regression1d", DatasetArgs{none, ""})->load(data_rng);
  ParamStore store;
  Rng rng(2);
  auto model = builtins().models.create("nadaraya_watson", ModelArgs{builtins(), ParamScope(store, rng), none, data});
  TrainConfig c;
  c.optimizer = {"sgd", {}};
  c.lr = 1e30f;
  c.epochs = 20;
  Trainer t(*model, store, builtins(), c, 5);
  REQUIRE(t.run() == RunStatus::diverged);
  REQUIRE(t.history().size() < 20);
  CHECK_FALSE(std::isfinite(t.history().back().train_loss));
}
