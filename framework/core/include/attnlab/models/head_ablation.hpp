// Taking a trained model's attention apart, head by head (docs/concepts/what-attention-computes.md), through the
// gates of head_gates.hpp on every site (map, layer) the model has:
//   ablation     each head switched off in turn (its output o_h set to 0, or replaced by its
//                mean over the evaluation data), then each layer's attention switched off (all
//                its heads); stored: metric(ablated) - metric(model), a [layer, head] grid per
//                map and metric, and a [layer] column per map for the layers
//   importance   Michel et al. 2019: I_h = E_x |dL(x)/dxi_h| for a gate xi_h = 1 on head h,
//                L(x) the loss of evaluation example x alone; normalised per layer as they do,
//                I_h / ||I_layer||_2 (the raw values are kept too)
//   pruning      Michel et al.'s curve: with the heads ordered by importance (recomputed after
//                each step on the heads left), remove the least important 10% of all heads at
//                each step, and measure the metrics at each share of heads kept
// The gates are cleared (the model is itself again) when it returns, also on an error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attnlab/models/model.hpp"

namespace attn {

// One value per (layer, head) of one map kind; values[name][layer * heads + head].
struct HeadGrid {
  std::string map;
  std::size_t layers = 0, heads = 0;
  std::map<std::string, std::vector<double>> values;
};

struct PruningCurve {
  std::vector<double> kept;                            // share of heads kept, 1 down to 0
  std::map<std::string, std::vector<double>> metrics;  // the metrics at each share
  std::vector<std::string> removed;                    // "map/layer/head" in the order removed
};

struct HeadAnalysis {
  std::string replacement = "zero";  // "zero" or "mean"
  Metrics baseline;                   // the model's own metrics
  std::vector<HeadGrid> ablation;     // metric deltas per head
  std::vector<HeadGrid> layer_ablation;  // metric deltas per layer (heads = 1)
  std::vector<HeadGrid> importance;   // "importance" (normalised per layer) and "importance_raw"
  PruningCurve pruning;
};

struct HeadAnalysisOptions {
  bool mean_replacement = false;  // a head switched off becomes its mean output, not 0
  bool full_metrics = true;       // evaluate(full): decoding metrics (exact match, BLEU) too
  bool pruning = true;
  // Told "what is being done, i of n" as the work goes on (progress for a person).
  std::function<void(const std::string&, std::size_t, std::size_t)> progress;
};

// The metric a summary of an analysis shows (every metric is kept): the first the model
// reports of exact match, accuracy, BLEU, perplexity and loss (valid_, then trainset_).
std::string headline_metric(const Metrics& metrics);

// Refused (std::invalid_argument, saying why) for a model without sites or evaluation data.
HeadAnalysis analyse_heads(Model& model, const HeadAnalysisOptions& options);

// Michel et al.'s importance of every head of every site with gates `kept` (1 kept, 0 removed;
// per site, [heads]; a removed head becomes `means` of its site when given) over the evaluation
// split: per site [heads], raw (E_x |dL(x)/dxi_h|). The model's gates are cleared after.
std::vector<std::vector<double>> head_importance(Model& model, const std::vector<std::vector<float>>& kept,
                                                 const std::vector<Tensor>& means = {});

}  // namespace attn
