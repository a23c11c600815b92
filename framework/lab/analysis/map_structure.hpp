// Which head of a report shows the most structure, so that the report opens on it.
//   structure(head) = mean over query rows q with k_q >= 2 visible keys of 1 - H(p_q) / log k_q
// where p_q = w_q / sum w_q (rows of any normalizer are measured by their shape) and k_q is the
// number of keys row q may see: all unpadded keys, or q + 1 in a causal map (decoder_self, as
// attention_metrics.hpp counts it). 0 is uniform attention over what a query
// can see, 1 every query on one key. Rows of weight below 0.01 (a sigmoid row that weighs nothing,
// whose shape would be noise) and rows with one visible key are left out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnlab/models/model.hpp"
#include "lab/results/results_format.hpp"

namespace attn {

// The structure of one layer and head of `m` (see above); NaN when no row counts.
double map_structure(const AttentionMap& m, std::size_t layer, std::size_t head);

struct MostStructured {
  std::string run, example, map;
  std::size_t layer = 0, head = 0;
  double structure = 0.0;
};

// Over the final maps of each run's first example (or probe): the layer and head of the largest
// structure, the first of equals; nothing when no run recorded a map with a row that counts.
std::optional<MostStructured> most_structured(const ResultsReader& file, const std::vector<RunInfo>& runs);

}  // namespace attn
