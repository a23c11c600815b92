// Training: optimizers and learning-rate schedules against PyTorch, label smoothing, scheduled
// sampling, gradient statistics, clipping, early stopping, divergence, and checkpoints that
// resume bit-identically.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include <unistd.h>

#include "lab/results/results_format.hpp"
#include "attnlab/autodiff/ops.hpp"
#include "attnlab/gradcheck.hpp"
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

TEST_CASE("Adam, AdamW and SGD with momentum take PyTorch's steps", "[training][optimizers][golden]") {
  const Golden g("optimizers.txt");
  for (const std::string name : {"adam", "sgd_momentum", "adamw"}) {
    DYNAMIC_SECTION(name) {
      Var w = leaf(g[name + ".W0"]);
      const Var x = constant(g["x"]), t = constant(g["t"]);
      Options o;
      if (name == "sgd_momentum") o.set("momentum", "0.9");
      if (name == "adamw") o.set("weight_decay", "0.1");
      auto opt = builtins().optimizers.create(name == "sgd_momentum" ? "sgd" : name, OptimizerArgs{o, {{"W", w}}});
      for (int step = 0; step < 3; ++step) {
        w.zero_grad();
        Tensor xv = x.value();
        xv.reshape({4, 1});
        sum(square(reshape(matmul(w, constant(xv)), {3}) - t)).backward();
        opt->step(0.1f);
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
  // Plain, and with every knob that draws from the stream or counts updates.
  const bool knobs = GENERATE(false, true);
  INFO("scheduled sampling, step schedule with warmup, label smoothing: " << knobs);
  TrainConfig config = small_config(4);
  if (knobs) {
    config.teacher_forcing = {0.8, "linear", 0.0, 0.05, 0.2};
    config.schedule.name = "step";
    config.schedule.warmup = 3;
    config.schedule.step_size = 4;
    config.label_smoothing = 0.1f;
    config.attention.epochs = {1, 3};  // snapshots before and after the interruption
  }
  SmallRun whole;
  Trainer straight(*whole.model, whole.store, builtins(), config, 11);
  REQUIRE(straight.run() == RunStatus::finished);

  const std::string path = temp_h5();
  {
    SmallRun first;
    Trainer t(*first.model, first.store, builtins(), config, 11);
    int epochs = 0;
    CHECK(t.run([&](const EpochRecord&) { return ++epochs < 2; }) == RunStatus::interrupted);
    write_trainer_state(path, t.state(), "config");
  }
  SmallRun second;  // fresh parameters (another initialisation), replaced by the checkpoint's
  second.rng = Rng(99);
  Trainer resumed(*second.model, second.store, builtins(), config, 11);
  resumed.restore(read_trainer_state(path));
  CHECK(resumed.epochs_done() == 2);
  REQUIRE(resumed.run() == RunStatus::finished);

  for (std::size_t i = 0; i < whole.store.size(); ++i) {
    INFO(whole.store.items()[i].first);
    CHECK((whole.store.items()[i].second.value() == second.store.items()[i].second.value()));
  }
  for (std::size_t e = 0; e < 4; ++e) {
    CHECK(straight.history()[e].train_loss == resumed.history()[e].train_loss);
    CHECK(straight.history()[e].lr == resumed.history()[e].lr);
    CHECK(straight.history()[e].statistics == resumed.history()[e].statistics);
    CHECK(straight.history()[e].metrics == resumed.history()[e].metrics);
    // attention metrics per head (float32 in the checkpoint) and the snapshots of the maps
    const auto& a = straight.history()[e].attention;
    const auto& b = resumed.history()[e].attention;
    REQUIRE(a.size() == b.size());
    for (std::size_t m = 0; m < a.size(); ++m)
      for (const auto& [metric, values] : a[m].values)
        for (std::size_t h = 0; h < values.size(); ++h)
          CHECK(static_cast<float>(values[h]) == static_cast<float>(b[m].values.at(metric)[h]));
    const auto& snap = straight.history()[e].snapshot;
    REQUIRE(snap.size() == resumed.history()[e].snapshot.size());
    CHECK(snap.empty() == !(knobs && (e == 0 || e == 2)));
    for (std::size_t x = 0; x < snap.size(); ++x)
      CHECK((snap[x].maps.at(0).weights == resumed.history()[e].snapshot[x].maps.at(0).weights));
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

TEST_CASE("every learning-rate schedule gives torch.optim.lr_scheduler's rates, update by update", "[training][schedules][golden]") {
  const Golden g("lr_schedules.txt");
  const std::size_t updates = g["constant"].size();
  for (const std::string name : {"constant", "step", "cosine", "noam"}) {
    for (const bool warmup : {false, true}) {
      if (name == "noam" && warmup) continue;  // noam's warmup is part of its formula
      DYNAMIC_SECTION(name << (warmup ? " with warmup" : "")) {
        LrSchedule s;
        s.name = name;
        s.warmup = name == "noam" ? 10 : warmup ? 5 : 0;
        s.step_size = 7, s.gamma = 0.5;
        s.min_lr = 0.01;
        s.factor = 2.0, s.d_model = 32;
        Tensor ours = Tensor::from_shape({updates});
        for (std::size_t u = 1; u <= updates; ++u) ours(u - 1) = static_cast<float>(scheduled_lr(s, 0.5, u, updates));
        CHECK(max_scaled_error(ours, g[name + (warmup ? "_warmup" : "")]) < 1e-6);
      }
    }
  }
  LrSchedule wrong;  // the check can fail: a step schedule is not a cosine one
  wrong.name = "step", wrong.step_size = 7, wrong.gamma = 0.5;
  Tensor step_rates = Tensor::from_shape({updates});
  for (std::size_t u = 1; u <= updates; ++u) step_rates(u - 1) = static_cast<float>(scheduled_lr(wrong, 0.5, u, updates));
  CHECK(max_scaled_error(step_rates, g["cosine"]) > 1e-2);
}

TEST_CASE("label-smoothed masked cross-entropy equals PyTorch's cross_entropy(label_smoothing) over valid tokens", "[training][golden][autodiff]") {
  const Golden g("label_smoothing.txt");
  const Var logits = leaf(g["logits"]);
  const IntTensor labels = g.ints("labels"), lens = g.ints("lens");
  const auto eps = static_cast<float>(g["eps"](0));
  const Var per_sequence = masked_cross_entropy(logits, labels, lens, eps);
  CHECK(max_scaled_error(per_sequence.value(), g["per_sequence"]) < 1e-5);
  // PyTorch averages over the valid tokens: sum_b T * loss_b / tokens.
  const float steps = static_cast<float>(labels.shape()[1]), tokens = static_cast<float>(xt::sum(lens)());
  const Var token_mean = sum(per_sequence) * (steps / tokens);
  CHECK(max_scaled_error(token_mean.value(), g["token_mean"]) < 1e-5);
  token_mean.backward();
  CHECK(max_scaled_error(logits.grad(), g["dlogits"]) < 1e-5);
  // eps = 0 is the plain cross-entropy, which the smoothed golden does not match.
  CHECK(max_scaled_error(masked_cross_entropy(logits, labels, lens).value(), g["per_sequence"]) > 1e-3);
}

TEST_CASE("label-smoothed masked cross-entropy passes a finite-difference gradient check", "[training][gradcheck]") {
  Rng rng(8);
  const Var x = leaf(randn({2, 3, 5}, rng));
  IntTensor labels = {{1, 4, 0}, {2, 2, 3}};
  const IntTensor lens = {3, 1};
  for (const float eps : {0.0f, 0.1f, 0.5f}) {
    INFO("eps " << eps);
    const GradCheckResult r = gradcheck([&] { return masked_cross_entropy(x, labels, lens, eps); }, NamedVars{{"x", x}}, rng);
    INFO(r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("scheduled sampling's ratio follows Bengio et al.'s three decays", "[training][teacher_forcing]") {
  const TeacherForcing linear{1.0, "linear", 0.0, 0.1, 0.2};
  CHECK(teacher_forcing_ratio(linear, 0) == Approx(1.0));
  CHECK(teacher_forcing_ratio(linear, 5) == Approx(0.5));
  CHECK(teacher_forcing_ratio(linear, 100) == Approx(0.2));  // the floor
  const TeacherForcing exponential{1.0, "exponential", 0.9, 0.0, 0.0};
  CHECK(teacher_forcing_ratio(exponential, 2) == Approx(0.81));
  const TeacherForcing inverse_sigmoid{1.0, "inverse_sigmoid", 10.0, 0.0, 0.0};
  CHECK(teacher_forcing_ratio(inverse_sigmoid, 0) == Approx(10.0 / 11.0));
  CHECK(teacher_forcing_ratio(inverse_sigmoid, static_cast<std::size_t>(std::lround(10 * std::log(10.0)))) == Approx(0.5).epsilon(0.01));
  CHECK(teacher_forcing_ratio(inverse_sigmoid, 1000000) < 1e-300);  // exp overflow held off
  const TeacherForcing constant{0.5, "none", 0.0, 0.0, 0.0};
  CHECK(teacher_forcing_ratio(constant, 12345) == 0.5);
  CHECK_FALSE(TeacherForcing{}.samples());
  CHECK(constant.samples());
}

TEST_CASE("teacher forcing below 1 feeds the model its own predictions, reproducibly from the seed", "[training][teacher_forcing]") {
  const auto train = [](double ratio, std::uint64_t seed) {
    SmallRun run;
    TrainConfig c = small_config(2);
    c.teacher_forcing.ratio = ratio;
    Trainer t(*run.model, run.store, builtins(), c, seed);
    t.run();
    return std::make_pair(run.store.items()[0].second.value(), t.history().back());
  };
  const auto forced = train(1.0, 11), sampled = train(0.5, 11), again = train(0.5, 11), other_seed = train(0.5, 12);
  CHECK((sampled.first == again.first));
  CHECK(sampled.second.train_loss == again.second.train_loss);
  CHECK_FALSE((sampled.first == forced.first));
  CHECK(sampled.second.train_loss != other_seed.second.train_loss);
  CHECK(sampled.second.statistics.at("teacher_forcing") == 0.5);
  CHECK(forced.second.statistics.count("teacher_forcing") == 0);
}

TEST_CASE("models refuse the training options their loss does not honour", "[training][teacher_forcing]") {
  SmallRun transformer("transformer");
  TrainConfig c = small_config(1);
  c.teacher_forcing.ratio = 0.5;
  CHECK_THROWS_WITH(Trainer(*transformer.model, transformer.store, builtins(), c, 1),
                    Catch::Contains("does not take teacher forcing"));
  c.teacher_forcing.ratio = 1.0;
  c.label_smoothing = 0.1f;
  CHECK_NOTHROW(Trainer(*transformer.model, transformer.store, builtins(), c, 1));
}

TEST_CASE("the history records the learning rate, clipping and the gradient norm of each parameter group", "[training][statistics]") {
  SmallRun run;
  TrainConfig c = small_config(3);
  c.batch_size = 96;  // the whole training set: one update per epoch
  c.schedule.name = "step";
  c.schedule.step_size = 2;
  c.schedule.gamma = 0.5;
  c.clip = 1e-6;  // every step is clipped
  Trainer t(*run.model, run.store, builtins(), c, 3);
  t.run();
  for (const EpochRecord& e : t.history()) {
    INFO("epoch " << e.epoch);
    CHECK(e.lr == Approx(scheduled_lr(c.schedule, c.lr, e.epoch, 3)));
    CHECK(e.clipped_fraction == 1.0);
    double squares = 0.0;  // one step: the groups' norms make up the global norm
    for (const auto& [name, value] : e.statistics)
      if (name.rfind("grad_norm.", 0) == 0) squares += value * value;
    CHECK(std::sqrt(squares) == Approx(e.grad_norm).epsilon(1e-9));
    CHECK(e.statistics.count("grad_norm.encoder"));
    CHECK(e.statistics.count("grad_norm.decoder"));
  }
  CHECK(t.history()[2].lr == Approx(0.5 * c.lr));
  c.clip = 0.0;  // clipping off: nothing clipped
  SmallRun unclipped;
  Trainer u(*unclipped.model, unclipped.store, builtins(), c, 3);
  u.run();
  CHECK(u.history()[0].clipped_fraction == 0.0);
}

TEST_CASE("training.steps: as many epochs as the steps take, the last cut after the last step; the schedule spans the steps", "[training][schedules]") {
  SmallRun run;
  TrainConfig c = small_config(99);  // (steps decide the epochs)
  c.steps = 7;                       // 96 examples in batches of 32: 3 updates an epoch, so 3 epochs, the last of one update
  c.schedule.name = "cosine";
  Trainer t(*run.model, run.store, builtins(), c, 3);
  CHECK(t.epochs() == 3);
  t.run();
  REQUIRE(t.history().size() == 3);
  for (const auto& [epoch, update] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}, {1, 6}, {2, 7}}) {
    INFO("epoch " << epoch + 1 << " ends with update " << update);  // each record keeps its last update's rate
    CHECK(t.history()[epoch].lr == Approx(scheduled_lr(c.schedule, c.lr, update, 7)));
  }
  CHECK(t.history()[0].lr != Approx(scheduled_lr(c.schedule, c.lr, 3, 9)));  // (not a schedule of 3 whole epochs)
}

TEST_CASE("training.decode_metrics puts exact match and BLEU into every evaluated epoch, of the validation split or the probe set",
          "[training][decode]") {
  for (const std::string decode : {"none", "valid", "probe"}) {
    DYNAMIC_SECTION("decode_metrics: " << decode) {
      SmallRun r;
      TrainConfig c = small_config(3);
      c.decode_metrics = decode;
      Trainer t(*r.model, r.store, builtins(), c, 1);
      REQUIRE(t.run() == RunStatus::finished);
      for (const EpochRecord& e : t.history()) {
        INFO("epoch " << e.epoch);
        CHECK(e.metrics.count("valid_token_acc") == 1);
        CHECK(e.metrics.count("valid_exact_match") == (decode == "valid" ? 1u : 0u));
        CHECK(e.metrics.count("valid_bleu") == (decode == "valid" ? 1u : 0u));
        CHECK(e.metrics.count("probe_exact_match") == (decode == "probe" ? 1u : 0u));
        CHECK(e.metrics.count("probe_bleu4") == (decode == "probe" ? 1u : 0u));
      }
      if (decode == "valid") {  // the same numbers as the model's own full evaluation
        const Metrics full = r.model->evaluate(true);
        CHECK(t.history().back().metrics.at("valid_exact_match") == full.at("valid_exact_match"));
        CHECK(t.history().back().metrics.at("valid_bleu") == full.at("valid_bleu"));
      }
    }
  }
}
