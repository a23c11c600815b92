// The built-in positional schemes one by one (their shared promises are in test_conformance.cpp,
// their numbers against PyTorch in test_torch_golden_plugins.cpp): what each computes, what it
// covers, what it refuses; and every model with self-attention taking each of them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <xtensor/xview.hpp>

#include "attnlab/attention/positions.hpp"
#include "attnlab/gradcheck.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::builtins;

namespace {

// The built-in scheme `name` for a model of width `dim` with `heads` heads (parameters <store>.positional.*).
CheckedPositional scheme(const std::string& name, ParamStore& store, std::size_t dim, std::size_t heads, bool causal = true,
                         const std::vector<std::pair<std::string, std::string>>& options = {}, std::size_t max_len = 64) {
  static Rng rng(5);
  PluginChoice choice{name, {}, "spec.yaml:7:17"};
  for (const auto& [k, v] : options) choice.options.set(k, v, "spec.yaml:8:5");
  const ParamScope scope(store, rng, "positional");
  return make_positional(builtins(), choice, scope, PositionalArgs{scope, choice.options, dim, heads, dim / heads, max_len, causal});
}

Tensor normal(const Shape& shape, std::uint64_t seed) { return test::randn(shape, seed); }

}  // namespace

TEST_CASE("rope: scores depend on the offset only (d2l-neu's 1.7e-6 and 1.4e-5), norms kept, position 0 unturned", "[positional]") {
  ParamStore store;
  const std::size_t n = 32, p = 64;
  const CheckedPositional rope = scheme("rope", store, p, 1);
  const Tensor q = normal({1, n, p}, 1), k = normal({1, n, p}, 2);
  const auto scores = [&](std::size_t shift) {
    return bmm(rope.rotate(constant(q), shift, Role::queries), rope.rotate(constant(k), shift, Role::keys), false, true).value();
  };
  const Tensor at0 = scores(0);
  const float size = xt::amax(xt::abs(at0))();
  for (const std::size_t shift : {std::size_t(1), std::size_t(480)}) {
    INFO("shift " << shift);
    CHECK(xt::amax(xt::abs(scores(shift) - at0))() < 1e-5f * size * (shift == 1 ? 1.0f : 10.0f));  // float32 round-off
  }
  // sinusoidal positions added to q and k move the same scores by their own size (d2l-neu: 2.8)
  const CheckedPositional sinusoidal = scheme("sinusoidal", store, p, 1, true, {}, 600);
  const auto added = [&](std::size_t shift) {
    return bmm(sinusoidal.add_to_input(constant(q), shift), sinusoidal.add_to_input(constant(k), shift), false, true).value();
  };
  CHECK(xt::amax(xt::abs(added(1) - added(0)))() > 1.0f);
  const Tensor turned = rope.rotate(constant(q), 5, Role::queries).value();
  CHECK(xt::sum(turned * turned)() == Approx(xt::sum(q * q)()).epsilon(1e-5));
  CHECK(xt::amax(xt::abs(xt::view(rope.rotate(constant(q), 0, Role::keys).value(), 0, 0) - xt::view(q, 0, 0)))() == 0.0f);
  CHECK(rope.traits.max_positions == 0);  // no table: any position
}

TEST_CASE("rope refuses an odd head size at the positional key, saying which sizes work", "[positional][errors]") {
  ParamStore store;
  CHECK_THROWS_WITH(scheme("rope", store, 10, 2), Catch::Contains("spec.yaml:7:17") && Catch::Contains("a head's size must be even; it is 5") &&
                                                      Catch::Contains("width / heads is even"));
}

TEST_CASE("alibi: s_h (j - i) causal, -s_h |i - j| bidirectional, slopes 2^(-8(h+1)/H), on a subset of heads", "[positional]") {
  ParamStore store;
  const Tensor causal = scheme("alibi", store, 16, 4).bias(2, 3, 0, 6).value();  // queries at 2, 3, 4 over keys 0..5
  const Tensor both = scheme("alibi", store, 16, 4, false).bias(2, 3, 0, 6).value();
  REQUIRE(causal.shape() == std::vector<std::size_t>{4, 3, 6});
  for (std::size_t h = 0; h < 4; ++h) {
    const double slope = std::pow(2.0, -8.0 * static_cast<double>(h + 1) / 4.0);
    CHECK(causal(h, 0, 2) == 0.0f);                  // the query's own position
    CHECK(causal(h, 1, 0) == Approx(-3.0 * slope));  // three positions back
    CHECK(causal(h, 2, 5) == Approx(1.0 * slope));   // a later key (masked by causal attention)
    CHECK(both(h, 2, 5) == Approx(-1.0 * slope));    // an encoder penalises both directions
    CHECK(both(h, 1, 0) == causal(h, 1, 0));
  }
  CHECK(causal(0, 1, 0) < causal(3, 1, 0));  // the first head forgets fastest
  const Tensor two = scheme("alibi", store, 16, 4, true, {{"heads", "2"}}).bias(2, 3, 0, 6).value();
  CHECK(two(0, 1, 0) == Approx(-3.0 * std::pow(2.0, -4.0)));  // slopes over the 2 biased heads
  CHECK(two(1, 1, 0) == Approx(-3.0 * std::pow(2.0, -8.0)));
  CHECK(xt::amax(xt::abs(xt::view(two, xt::range(2, 4))))() == 0.0f);  // heads 2 and 3 see no positions
  CHECK_THROWS_WITH(scheme("alibi", store, 16, 4, true, {{"heads", "5"}}), Catch::Contains("more than the model's 4 heads"));
}

TEST_CASE("t5_bias: T5's distance buckets (causal and both ways), a learned bias per head, gradients", "[positional]") {
  ParamStore store;
  const CheckedPositional t5 = scheme("t5_bias", store, 4, 2);  // 32 buckets up to distance 128
  REQUIRE(store.items().at(0).first == "positional.bias");
  Var table = store.items().at(0).second;
  REQUIRE(table.value().shape() == std::vector<std::size_t>{32, 2});
  for (std::size_t b = 0; b < 32; ++b) table.mutable_value()(b, 0) = static_cast<float>(b), table.mutable_value()(b, 1) = -static_cast<float>(b);
  // exact below half the buckets, then log-spaced to max_distance, then the last bucket
  for (const auto& [distance, bucket] : std::vector<std::pair<std::size_t, float>>{
           {0, 0}, {1, 1}, {15, 15}, {16, 16}, {32, 21}, {64, 26}, {127, 31}, {128, 31}, {100000, 31}}) {
    INFO("distance " << distance);
    CHECK(t5.bias(distance, 1, 0, 1).value()(0, 0, 0) == bucket);
    CHECK(t5.bias(distance, 1, 0, 1).value()(1, 0, 0) == -bucket);
    CHECK(t5.bias(7, 1, 7 + distance, 1).value()(0, 0, 0) == 0.0f);  // a later key: causal's bucket 0
  }
  const Tensor at0 = t5.bias(0, 6, 0, 6).value(), later = t5.bias(10, 6, 10, 6).value();
  CHECK(xt::amax(xt::abs(at0 - later))() == 0.0f);  // the same offsets ten positions later
  ParamStore other;
  const CheckedPositional both = scheme("t5_bias", other, 4, 2, false, {{"buckets", "8"}, {"max_distance", "16"}});
  Var t = other.items().at(0).second;
  for (std::size_t b = 0; b < 8; ++b) t.mutable_value()(b, 0) = static_cast<float>(b);
  const Tensor b = both.bias(4, 1, 0, 9).value();  // query at 4 over keys 0..8: 4 buckets each way
  CHECK(b(0, 0, 4) == 0.0f);                       // distance 0
  CHECK(b(0, 0, 3) == 1.0f);                       // one back
  CHECK(b(0, 0, 5) == 5.0f);                       // one ahead: the second half
  CHECK(b(0, 0, 0) == 2.0f);                       // four back: log-spaced, log(4/2) / log(16/2) of the way
  Rng check(3);
  CHECK(gradcheck([&] { return t5.bias(3, 4, 0, 7); }, NamedVars{{"positional.bias", table}}, check).ok);
  CHECK_THROWS_WITH(scheme("t5_bias", store, 4, 2, true, {{"buckets", "32"}, {"max_distance", "10"}}),
                    Catch::Contains("max_distance (10) must exceed the 16 distances"));
}

TEST_CASE("sinusoidal covers any position; learned only its table, refused past it with what would work", "[positional]") {
  ParamStore store;
  const CheckedPositional sinusoidal = scheme("sinusoidal", store, 6, 1, true, {}, 20);
  CHECK(store.size() == 0);
  const Tensor y = sinusoidal.add_to_input(constant(xt::zeros<float>({2, 4, 6})), 0).value();
  CHECK(y(1, 0, 1) == Approx(1.0f));            // cos(0)
  CHECK(y(0, 3, 0) == Approx(std::sin(3.0f)));  // sin(3 / 10000^0)
  const Tensor far = sinusoidal.add_to_input(constant(xt::zeros<float>({1, 2, 6})), 30).value();  // past the 20 precomputed rows
  CHECK(far(0, 1, 2) == Approx(std::sin(31.0 / std::pow(10000.0, 2.0 / 6.0))));
  CHECK(sinusoidal.traits.max_positions == 0);
  const CheckedPositional learned = scheme("learned", store, 6, 1, true, {}, 20);
  REQUIRE(store.contains("positional.P"));
  Var x = leaf(normal({2, 4, 6}, 4));
  sum(square(learned.add_to_input(x, 0))).backward();
  const Tensor& g = store.get("positional.P").grad();
  for (std::size_t j = 0; j < 6; ++j) CHECK(g(10, j) == 0.0f);  // positions beyond the sequence get nothing
  CHECK(g(0, 0) != 0.0f);
  CHECK(learned.traits.max_positions == 20);
  CHECK_THROWS_WITH(learned.add_to_input(constant(xt::zeros<float>({1, 21, 6})), 0),
                    Catch::Contains("positional scheme 'learned' covers positions 0..19") && Catch::Contains("raise max_len"));
}

namespace {

Data load(const std::string& dataset, const std::vector<std::pair<std::string, std::string>>& options) {
  Options o;
  for (const auto& [k, v] : options) o.set(k, v, "spec.yaml:4:3");
  Rng rng(1);
  return builtins().datasets.create(dataset, DatasetArgs{o, test::source_root})->load(rng);
}

std::shared_ptr<Model> make_model(const std::string& name, const Data& data, const std::vector<std::pair<std::string, std::string>>& options,
                                  ParamStore& store) {
  Options o;
  for (const auto& [k, v] : options) o.set(k, v, "spec.yaml:9:" + std::to_string(3 + k.size()));
  Rng init(3);
  auto model = builtins().models.create(name, ModelArgs{builtins(), ParamScope(store, init), o, data});
  o.require_all_read("model");
  return model;
}

// The model built in a store of its own (for refusals, which leave a store half filled).
std::shared_ptr<Model> make_model(const std::string& name, const Data& data, const std::vector<std::pair<std::string, std::string>>& options) {
  ParamStore store;
  return make_model(name, data, options, store);
}

}  // namespace

TEST_CASE("every model with self-attention takes every built-in scheme, the graph model too; a model without attention scores refuses rope, alibi, t5_bias", "[positional][models]") {
  const Data reverse = test::reverse_task(40);
  const Data sorted = load("sequence_task", {{"task", "sorted"}, {"num_train", "20"}, {"max_len", "6"}});
  const Data text = load("text_corpus", {{"num_steps", "12"}, {"num_train", "20"}, {"num_valid", "4"}});
  const Data karate = load("graph", {{"edges", test::source_root + "/datasets/karate-club/edges.txt"},
                                     {"labels", test::source_root + "/datasets/karate-club/clubs.txt"}});
  const std::vector<std::pair<std::string, std::string>> small = {{"d_model", "8"}, {"heads", "2"}};
  for (const std::string positional : {"none", "sinusoidal", "learned", "rope", "alibi", "t5_bias"})
    for (const auto& [model, data] : std::vector<std::pair<std::string, const Data*>>{
             {"transformer", &reverse}, {"encoder_tagger", &reverse}, {"encoder_classifier", &sorted}, {"language_model", &text}, {"gat", &karate}}) {
      DYNAMIC_SECTION(model << " with " << positional) {
        ParamStore store;
        auto options = model == "gat" ? std::vector<std::pair<std::string, std::string>>{{"hidden", "4"}, {"heads", "2"}} : small;
        options.emplace_back("positional", positional);
        auto m = make_model(model, *data, options, store);
        Rng rng(1);
        const float loss = m->loss(model == "gat" ? std::vector<std::size_t>{0} : std::vector<std::size_t>{0, 1, 2}, TrainingStep{rng}).loss.value()();  // (a graph is one example)
        CHECK(std::isfinite(loss));
        const auto tables = std::count_if(store.items().begin(), store.items().end(), [](const auto& item) {
          return item.first.size() >= 12 && item.first.compare(item.first.size() - 12, 12, "positional.P") == 0;
        });
        CHECK((tables > 0) == (positional == "learned"));  // (gat: one per layer)
      }
    }
  for (const std::string positional : {"rope", "alibi", "t5_bias"}) {
    INFO(positional);
    CHECK_THROWS_WITH(make_model("encoder_tagger", reverse, {{"encoder", "convolution"}, {"positional", positional}}),
                      Catch::Contains("spec.yaml:9:13") && Catch::Contains("encoder 'convolution' has no attention scores") &&
                          Catch::Contains("sinusoidal, learned"));
  }
  CHECK_THROWS_WITH(make_model("transformer", reverse, {{"positional", "rotary"}}),
                    Catch::Contains("unknown positional scheme 'rotary'") && Catch::Contains("rope"));
  CHECK_THROWS_WITH(make_model("language_model", text, {{"d_model", "6"}, {"heads", "2"}, {"positional", "rope"}}),
                    Catch::Contains("a head's size must be even; it is 3"));
}
