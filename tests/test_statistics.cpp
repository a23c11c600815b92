// The statistics of `attnlab compare --metric`: Welch's t-test and the t-based confidence
// interval against SciPy (tests/golden/statistics.txt, make_golden.py statistics_golden), the
// best epoch of a history, and the command on results files.
#include <catch2/catch.hpp>

#include <cmath>

#include "golden.hpp"
#include "lab/results/statistics.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::Golden;

namespace {

std::vector<double> values(const Tensor& t) { return {t.begin(), t.end()}; }

}  // namespace

TEST_CASE("Welch's t-test and the 95% interval of a mean match SciPy", "[statistics][golden]") {
  const Golden g("statistics.txt");
  for (int i = 0; i < 4; ++i) {
    DYNAMIC_SECTION("case " << i) {
      const std::vector<double> a = values(g["a" + std::to_string(i)]), b = values(g["b" + std::to_string(i)]);
      const Tensor& expected = g["welch" + std::to_string(i)];
      const WelchTest w = welch_test(a, b);
      CHECK(w.t == Approx(expected(0)).epsilon(1e-5));
      CHECK(w.df == Approx(expected(1)).epsilon(1e-5));
      CHECK(w.p == Approx(expected(2)).epsilon(1e-4));
      const MeanInterval m = mean_interval(a);
      CHECK(m.low == Approx(g["interval" + std::to_string(i)](0)).epsilon(1e-5));
      CHECK(m.high == Approx(g["interval" + std::to_string(i)](1)).epsilon(1e-5));
    }
  }
  CHECK(std::isnan(welch_test({1.0}, {2.0, 3.0}).p));       // one seed on a side: no test
  CHECK(std::isnan(welch_test({1.0, 1.0}, {2.0, 2.0}).p));  // no spread on either side: no test
  CHECK(std::isnan(mean_interval({4.0}).low));
}

TEST_CASE("the best epoch is the lowest loss or perplexity and the highest of anything else", "[statistics]") {
  const double nan = std::nan("");
  CHECK(best_epoch({nan, 0.9, 0.4, 0.6}, "valid_loss") == std::optional<std::size_t>(2));
  CHECK(best_epoch({nan, 0.9, 0.4, 0.6}, "valid_exact_match") == std::optional<std::size_t>(1));
  CHECK(best_epoch({3.0, 2.0, 2.5}, "valid_ppl") == std::optional<std::size_t>(1));
  CHECK_FALSE(best_epoch({nan, nan}, "valid_loss").has_value());
}

TEST_CASE("compare: several files, the best epoch, intervals and Welch's test between sweep points", "[statistics][cli][slow]") {
  const attn::test::TempDir dir("attnlab-compare");
  const std::string a = dir / "a.h5", b = dir / "b.h5";
  const std::string spec = attn::test::source_root + "/tests/specs/good/tiny-sweep.yaml";
  REQUIRE(attn::test::command_output(attn::test::attnlab_exe + " run " + spec + " --threads 2 --output " + a + " > /dev/null 2>&1").status == 0);
  REQUIRE(attn::test::command_output(attn::test::attnlab_exe + " run " + spec + " --threads 2 --set model.embed=16 --output " + b +
                                     " > /dev/null 2>&1").status == 0);
  const auto both = attn::test::command_output(attn::test::attnlab_exe + " compare " + a + " " + b);
  REQUIRE(both.status == 0);
  CHECK_THAT(both.text, Catch::Contains("file=a.h5, scoring=additive") && Catch::Contains("file=b.h5, scoring=dot"));
  const auto stats = attn::test::command_output(attn::test::attnlab_exe + " compare " + a + " --metric valid_loss");
  REQUIRE(stats.status == 0);
  CHECK_THAT(stats.text, Catch::Contains("valid_loss over seeds, the final model (95% confidence interval") &&
                             Catch::Contains("Welch's t-test between sweep points") &&
                             Catch::Contains("scoring=additive  scoring=dot  2, 2"));
  const auto best = attn::test::command_output(attn::test::attnlab_exe + " compare " + a + " --best valid_loss");
  REQUIRE(best.status == 0);
  CHECK_THAT(best.text, Catch::Contains("at each run's best epoch by valid_loss (lowest is best") && Catch::Contains("best_epoch"));
  CHECK(attn::test::command_output(attn::test::attnlab_exe + " compare " + a + " --metric valid_nothing 2>&1").status == 2);
  CHECK(attn::test::command_output(attn::test::attnlab_exe + " compare " + a + " --best valid_nothing 2>&1").status == 2);
}

