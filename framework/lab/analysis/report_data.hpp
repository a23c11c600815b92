// The data the interactive report draws, as one JSON text embedded in its page (read by
// report_viewer.js; its shape is documented there and in docs/analysis.md):
//   { name, groups: [{label, runs: [id...]}],                 runs grouped by sweep point
//     curves: {<history column>: [{label, epoch, mean, std}]},  per sweep point, over seeds
//     lengths: {<metric>: [{label, epoch (the lengths), mean, std}]},  evaluation.lengths, the same way
//     runs: [{id, label, status, seed, examples: [{name, source, target, prediction,
//             views: [{epoch ("final" or a number), maps: [{name, rows, columns, layers, heads,
//                      rows_sum_to_one, queries, keys, gold,
//                      weights (flat [layer][head][query][key], 3 decimals)}]}]}]}],
//     opening: {run, example, map, layer, head, structure} }   the head the explorer opens on
//                                                             (lab/analysis/map_structure.hpp)
// <pad> rows and columns are left out, as in every picture.
#pragma once

#include <string>
#include <vector>

#include "lab/results/summary.hpp"

namespace attn {

class ResultsReader;

std::string report_data(const ResultsReader& file, const std::vector<RunInfo>& runs);

}  // namespace attn
