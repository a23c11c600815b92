// Attention rollout and flow (attention_rollout.hpp) against a hand computation on a 2-layer,
// 2-position example, and the three head fusions on a layer of 2 heads.
#include <catch2/catch.hpp>

#include "attnlab/models/attention_rollout.hpp"
#include "test_support.hpp"

using namespace attn;

namespace {

// [layers, heads, n, n] from rows given layer by layer, head by head.
Tensor weights_of(const std::vector<std::vector<std::vector<std::vector<float>>>>& layers) {
  const std::size_t n = layers[0][0].size();
  Tensor w = Tensor::from_shape({layers.size(), layers[0].size(), n, n});
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (std::size_t h = 0; h < layers[l].size(); ++h)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) w(l, h, i, j) = layers[l][h][i][j];
  return w;
}

}  // namespace

TEST_CASE("rollout and flow of two layers, by hand", "[rollout]") {
  // A_0 = [[1, 0], [0.6, 0.4]] -> Â_0 = rownorm(A_0 + I) = [[1, 0], [0.3, 0.7]]
  // A_1 = [[1, 0], [0.2, 0.8]] -> Â_1 = [[1, 0], [0.1, 0.9]]
  // rollout = Â_1 Â_0 = [[1, 0], [0.1 + 0.9 * 0.3, 0.9 * 0.7]] = [[1, 0], [0.37, 0.63]]
  const Tensor w = weights_of({{{{1.0f, 0.0f}, {0.6f, 0.4f}}}, {{{1.0f, 0.0f}, {0.2f, 0.8f}}}});
  const Tensor r = attention_rollout(w, HeadFusion::mean, 2);
  CHECK(r(0, 0) == Approx(1.0));
  CHECK(r(0, 1) == Approx(0.0).margin(1e-7));
  CHECK(r(1, 0) == Approx(0.37));
  CHECK(r(1, 1) == Approx(0.63));
  // flow into output 1: from input 0 along 0 -> 0 -> 1 (bottleneck 0.1) and 0 -> 1 -> 1 (0.3),
  // 0.4 in all; from input 1 along 1 -> 1 -> 1 (0.7); normalised: 0.4 / 1.1 and 0.7 / 1.1.
  // Into output 0: all from input 0.
  const Tensor f = attention_flow(w, HeadFusion::mean, 2);
  CHECK(f(1, 0) == Approx(0.4 / 1.1));
  CHECK(f(1, 1) == Approx(0.7 / 1.1));
  CHECK(f(0, 0) == Approx(1.0));
  CHECK(f(0, 1) == Approx(0.0).margin(1e-7));
}

TEST_CASE("rollout fuses heads by their mean, max or min before adding the residual", "[rollout]") {
  // heads [[1, 0], [1, 0]] and [[1, 0], [0, 1]]: row 1 is [0.5, 0.5] (mean), [1, 1] (max),
  // [0, 0] (min); plus I and renormalised: [0.25, 0.75], [1/3, 2/3], [0, 1]
  const Tensor w = weights_of({{{{1.0f, 0.0f}, {1.0f, 0.0f}}, {{1.0f, 0.0f}, {0.0f, 1.0f}}}});
  CHECK(attention_rollout(w, HeadFusion::mean, 2)(1, 0) == Approx(0.25));
  CHECK(attention_rollout(w, HeadFusion::max, 2)(1, 0) == Approx(1.0 / 3.0));
  CHECK(attention_rollout(w, HeadFusion::min, 2)(1, 0) == Approx(0.0).margin(1e-7));
  CHECK(head_fusion("max") == HeadFusion::max);
  CHECK_THROWS_WITH(head_fusion("median"), Catch::Contains("expected mean, max or min"));
  // padded positions: a third position past n_valid gets nothing and gives nothing
  Tensor padded = Tensor::from_shape({1, 1, 3, 3});
  padded.fill(1.0f / 3.0f);
  const Tensor r = attention_rollout(padded, HeadFusion::mean, 2);
  CHECK(r(2, 0) == 0.0f);
  CHECK(r(0, 2) == 0.0f);
  CHECK(r(0, 0) + r(0, 1) == Approx(1.0));
  CHECK_THROWS_WITH(attention_rollout(Tensor::from_shape({1, 1, 2, 3}), HeadFusion::mean, 2), Catch::Contains("[layer, head, n, n]"));
  CHECK_THROWS_WITH(attention_flow(Tensor::from_shape({1, 1, 70, 70}), HeadFusion::mean, 70), Catch::Contains("at most 64 positions"));
}

TEST_CASE("plot --rollout (mean, max, min, gradient) and --flow draw a self-attention map composed over its layers, and refuse the rest",
          "[rollout][cli][slow]") {
  const attn::test::TempDir dir("attnlab-rollout");
  const std::string lm = dir / "lm.h5";
  REQUIRE(attn::test::command_output("cd " + attn::test::source_root + " && " + attn::test::attnlab_exe +
                                     " run experiments/induction-heads.yaml --set dataset.num_train=640 --set dataset.num_valid=32"
                                     " --set training.steps=5 --set 'sweep.model.layers=[2]' --output " + lm + " > /dev/null 2>&1").status == 0);
  const auto rollout = attn::test::command_output(attn::test::attnlab_exe + " plot " + lm + " --attention --rollout mean -o " + (dir / "r.svg"));
  REQUIRE(rollout.status == 0);
  CHECK_THAT(attn::test::read_text(dir / "r.svg"), Catch::Contains("decoder_self rollout over 2 layers, heads") && Catch::Contains("mean, with the residual"));
  CHECK_THAT(attn::test::read_text(dir / "r.svg"), Catch::Contains("class=\"token-lines\"") && Catch::Contains("<line"));  // text: as token lines too
  REQUIRE(attn::test::command_output(attn::test::attnlab_exe + " plot " + lm + " --attention --flow max -o " + (dir / "f.svg")).status == 0);
  CHECK_THAT(attn::test::read_text(dir / "f.svg"), Catch::Contains("decoder_self flow over 2 layers"));
  REQUIRE(attn::test::command_output(attn::test::attnlab_exe + " plot " + lm + " --attention --rollout gradient -o " + (dir / "g.svg")).status == 0);
  CHECK_THAT(attn::test::read_text(dir / "g.svg"), Catch::Contains("decoder_self gradient-weighted rollout over 2 layers"));
  const auto fusion = attn::test::command_output(attn::test::attnlab_exe + " plot " + lm + " --attention --rollout median 2>&1");
  CHECK(fusion.status == 2);
  CHECK_THAT(fusion.text, Catch::Contains("'median': expected mean, max or min; or gradient"));
  const auto flow = attn::test::command_output(attn::test::attnlab_exe + " plot " + lm + " --attention --flow gradient 2>&1");
  CHECK(flow.status == 2);
  CHECK_THAT(flow.text, Catch::Contains("'gradient': expected mean, max or min"));
  const auto plugin = attn::test::command_output(attn::test::attnlab_exe + " plot " + lm + " --attention --rollout mean --plugin x.so 2>&1");
  CHECK(plugin.status == 2);
  CHECK_THAT(plugin.text, Catch::Contains("which only --rollout gradient does"));
  const auto layer = attn::test::command_output(attn::test::attnlab_exe + " plot " + lm + " --attention --rollout mean --layer 1 2>&1");
  CHECK(layer.status == 2);
  CHECK_THAT(layer.text, Catch::Contains("--layer, --head and --average do not apply"));
  const std::string seq = dir / "seq.h5";
  REQUIRE(attn::test::command_output(attn::test::attnlab_exe + " run " + attn::test::source_root +
                                     "/tests/specs/good/tiny-sweep.yaml --output " + seq + " > /dev/null 2>&1").status == 0);
  const auto cross = attn::test::command_output(attn::test::attnlab_exe + " plot " + seq + " --run scoring-dot_seed-1 --attention --rollout mean 2>&1");
  CHECK(cross.status == 2);
  CHECK_THAT(cross.text, Catch::Contains("the cross map is not one"));
}

TEST_CASE("gradient-weighted rollout of two layers, by hand", "[rollout][relevance]") {
  // G_0 = [[0.2, -0.1], [0.4, 0.3]] -> Ā_0 = [[0.2, 0], [0.4, 0.3]]; R_1 = I + Ā_0 = [[1.2, 0], [0.4, 1.3]]
  // G_1 heads [[0, 0.5], [-1, 0.1]] and [[0, 0.5], [1, 0.1]] -> Ā_1 = [[0, 0.5], [0.5, 0.1]] (the
  // mean of the positive parts); Ā_1 R_1 = [[0.2, 0.65], [0.64, 0.13]];
  // R_2 = [[1.4, 0.65], [1.04, 1.43]]; R_2 - I = [[0.4, 0.65], [1.04, 0.43]], rows over their
  // sums 1.05 and 1.47.
  const Tensor g = weights_of({{{{0.2f, -0.1f}, {0.4f, 0.3f}}, {{0.2f, -0.1f}, {0.4f, 0.3f}}},
                               {{{0.0f, 0.5f}, {-1.0f, 0.1f}}, {{0.0f, 0.5f}, {1.0f, 0.1f}}}});
  const Tensor r = gradient_rollout(g, 2);
  CHECK(r(0, 0) == Approx(0.4 / 1.05));
  CHECK(r(0, 1) == Approx(0.65 / 1.05));
  CHECK(r(1, 0) == Approx(1.04 / 1.47));
  CHECK(r(1, 1) == Approx(0.43 / 1.47));
  // A padded third position takes no part: rows and keys past n_valid are 0.
  const Tensor padded = gradient_rollout(weights_of({{{{0.5f, 0.1f, 0.9f}, {0.2f, 0.3f, 0.9f}, {0.9f, 0.9f, 0.9f}}}}), 2);
  CHECK(padded(0, 2) == 0.0f);
  CHECK(padded(2, 0) == 0.0f);
  CHECK(padded(0, 0) + padded(0, 1) == Approx(1.0));
}
