// Measuring attention (docs/concepts/measuring-attention.md). For one row w of an attention map
// (a query's weights over its n valid keys; rows are renormalised p = w / sum w for the
// entropies, so sigmoid rows are measured by their shape):
//   entropy          H(p) / log n  = -sum_j p_j log p_j / log n, in [0, 1]; 0 when n = 1
//   max_weight       max_j w_j
//   effective_keys   exp(H(p)), in [1, n]: how many keys the row spreads over
//   alignment        [argmax_j w_j == g]  where g is the gold key of the query (copy: the same
//                    position, reverse: n - 1 - t, sort: the source position of the t-th
//                    smallest); rows without a gold key are left out
//   gold_mass        w_g
//   effective_width  sqrt(sum_j p_j (x_j - sum_i p_i x_i)^2): the spread of the key positions x
//                    (Nadaraya-Watson: the width the kernel really has)
//   monotonicity     cross-attention only, per example: with c_t = sum_j p_j j the centre of
//                    output step t's weights, the fraction of pairs of steps s < t with
//                    c_s <= c_t (Kendall's tau mapped to [0, 1]): 1 for an alignment that reads
//                    the source left to right (copy, speech), 0 for reversal, about 0.5 for none
// and, for self-attention maps (encoder_self, decoder_self: the token at query position i is
// key i), the head detectors:
//   diagonal         w_i                    (the query's own position)
//   previous_token   w_{i-1}                (rows i >= 1)
//   first_token      w_0                    (rows i >= 1: the "sink")
//   induction        sum_{j < i, x_j = x_i} w_{j+1}: the mass on the positions just after the
//                    earlier occurrences of the query's token (Olsson et al. 2022's prefix
//                    matching; j < i, so j + 1 = i when x_{i-1} = x_i); rows whose token
//                    occurred before only
// Each metric is the mean over the rows of every example (monotonicity: over the examples), per
// map kind, layer and head.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "attnlab/models/model.hpp"

namespace attn {

// One map kind's metrics: values[metric][layer * heads + head].
struct MapMetrics {
  std::string map;  // cross, encoder_self, decoder_self, kernel
  std::size_t layers = 0, heads = 0;
  std::map<std::string, std::vector<double>> values;
  // The mean over layers and heads of one metric.
  double mean(const std::string& metric) const;
};

// The metrics of every map kind recorded for `examples` (maps of one kind must agree in layers
// and heads). alignment and gold_mass exist when some query has a gold key; effective_width
// when the keys have positions; monotonicity for cross maps with two steps or more.
std::vector<MapMetrics> attention_metrics(const std::vector<ExampleAttention>& examples);

// What a model's attention on the probe set shows: the metrics of every probe example (when
// asked) and the maps of the examples to keep. Evaluation mode; draws from no training stream.
struct ProbeLook {
  std::vector<MapMetrics> metrics;
  std::vector<ExampleAttention> kept;
};
ProbeLook look_at_probe(Model& model, const std::vector<std::size_t>& keep, bool measure);

// "attention.<map>.<metric>" -> the mean over layers and heads, for histories and summaries; not
// for the head detectors, which describe one head each (a mean of a previous-token head and an
// induction head describes neither): they are kept per layer and head only.
Metrics attention_metric_means(const std::vector<MapMetrics>& metrics);
bool is_head_detector(const std::string& metric);

}  // namespace attn
