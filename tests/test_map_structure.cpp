// The rule the report opens on (lab/analysis/map_structure.hpp): the mean over queries of
// 1 - H(p) / log(keys the query can see), by hand on small maps.
#include <catch2/catch.hpp>

#include <cmath>

#include "lab/analysis/map_structure.hpp"

using namespace attn;

namespace {

// One layer, one head, rows given; tokens "t0", "t1", ... for queries and keys unless given.
AttentionMap map_of(const std::vector<std::vector<float>>& rows, std::vector<std::string> keys = {}, const std::string& name = "encoder_self") {
  AttentionMap m;
  m.name = name;
  const std::size_t n_q = rows.size(), n_k = rows[0].size();
  m.weights = Tensor::from_shape({1, 1, n_q, n_k});
  for (std::size_t i = 0; i < n_q; ++i)
    for (std::size_t j = 0; j < n_k; ++j) m.weights(0, 0, i, j) = rows[i][j];
  for (std::size_t i = 0; i < n_q; ++i) m.queries.push_back("t" + std::to_string(i));
  if (keys.empty())
    for (std::size_t j = 0; j < n_k; ++j) keys.push_back("t" + std::to_string(j));
  m.keys = keys;
  return m;
}

}  // namespace

TEST_CASE("map structure: 0 for uniform attention, 1 for one key per query, the entropy in between", "[report][structure]") {
  CHECK(map_structure(map_of({{0.25f, 0.25f, 0.25f, 0.25f}, {0.25f, 0.25f, 0.25f, 0.25f}}), 0, 0) == Approx(0.0).margin(1e-6));
  CHECK(map_structure(map_of({{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}), 0, 0) == Approx(1.0));
  // One row (0.5, 0.5, 0, 0): H = log 2, so 1 - log 2 / log 4 = 0.5; the other row one-hot, 1.
  CHECK(map_structure(map_of({{0.5f, 0.5f, 0, 0}, {0, 0, 0, 1}}), 0, 0) == Approx(0.75));
}

TEST_CASE("map structure: a causal map is measured against the keys each query can see", "[report][structure]") {
  // Uniform over what each query of decoder self-attention sees: row q spreads over q + 1 keys.
  // Measured against their own keys the rows score 0; an encoder's map of the same rows is
  // measured against all 3 keys: 1, 1 - log 2 / log 3 and 0, a mean of 0.456.
  const std::vector<std::vector<float>> rows = {{1, 0, 0}, {0.5f, 0.5f, 0}, {1.0f / 3, 1.0f / 3, 1.0f / 3}};
  CHECK(map_structure(map_of(rows, {}, "decoder_self"), 0, 0) == Approx(0.0).margin(1e-6));
  CHECK(map_structure(map_of(rows), 0, 0) == Approx((1.0 + 1.0 - std::log(2.0) / std::log(3.0)) / 3.0));
  // The first row (one visible key) counts for nothing; the last two put everything on key 0.
  CHECK(map_structure(map_of({{1, 0, 0}, {1, 0, 0}, {1, 0, 0}}, {}, "decoder_self"), 0, 0) == Approx(1.0));
}

TEST_CASE("map structure: padding and rows of weight below 0.01 are left out; a row's sum does not matter", "[report][structure]") {
  // Over keys a and b, row 0 is uniform (0) and row 1 one-hot (1); with the <pad> key counted
  // they would score about 0.01 and 0.39.
  const AttentionMap padded = map_of({{0.3f, 0.3f, 0.4f}, {0.0f, 0.6f, 0.4f}}, {"a", "b", "<pad>"});
  CHECK(map_structure(padded, 0, 0) == Approx(0.5));
  // Sigmoid-like rows that sum to 2 and 0: the first is uniform in shape, the second left out.
  CHECK(map_structure(map_of({{1, 1}, {0, 0}}), 0, 0) == Approx(0.0).margin(1e-6));
  CHECK(std::isnan(map_structure(map_of({{0, 0}, {0, 0}}), 0, 0)));
  // A row that weighs almost nothing is left out, whatever its shape.
  CHECK(map_structure(map_of({{0.5f, 0.5f}, {0.0f, 0.009f}}), 0, 0) == Approx(0.0).margin(1e-6));
  CHECK(std::isnan(map_structure(map_of({{1, 0}}), 2, 0)));  // no such layer
}
