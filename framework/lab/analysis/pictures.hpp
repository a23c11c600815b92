// The pictures attnlab draws from a results file (used by `attnlab plot` and `attnlab report`).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/models/model.hpp"

namespace attn {

class ResultsReader;

struct AttentionView {
  std::string example;                 // "example_<i>" or "probe_<n>" (default: the first recorded example)
  std::string map;                     // cross, encoder_self, decoder_self, kernel ("" = every map)
  std::optional<std::size_t> layer, head;
  bool average = false;                // average over heads (per layer) instead of one per head
  bool own_scale = false;              // each panel coloured up to its own largest weight (default: [0, 1] for all)
  // "rollout" or "flow": each self-attention map composed over its layers (attention_rollout.hpp),
  // heads fused by `fusion` ("mean", "max", "min"; for rollout also "gradient": Chefer et al.'s
  // gradient-weighted rollout), drawn as one panel titled `title`.
  std::string composed, fusion = "mean", title;
  // For "gradient": the relevance of a map's weights on a probe example, [layer, head, n, n]
  // (attention_relevance.hpp), computed by the run's rebuilt model.
  std::function<Tensor(const std::string& map, std::size_t example)> relevance;
};

// Attention heatmaps of one run: rows are queries (target tokens, or x positions), columns keys
// (source tokens, or training x), one picture per layer and head (or head average).
// (= draw_attention(example_to_draw(file, run, view.example), view))
std::string attention_picture(const ResultsReader& file, const std::string& run, const AttentionView& view);

// What an attention picture is drawn from, read once: one recorded example ("" = the first) and
// the input it is drawn on (a graph's adjacency; the probe images; the probe frames, their
// lengths and times), when the run kept it.
struct ExampleToDraw {
  std::string path, run, name;
  ExampleAttention example;
  std::optional<Tensor> adjacency, images, frames, lengths, times;
};
ExampleToDraw example_to_draw(const ResultsReader& file, const std::string& run, const std::string& example);
// The pictures of the example's maps the view selects (view.example is not read).
std::string draw_attention(const ExampleToDraw& example, const AttentionView& view);
// Per-epoch curves of one or several runs overlaid (default metrics: train_loss and every
// evaluated *_loss).
std::string curves_picture(const ResultsReader& file, const std::vector<std::string>& runs,
                           const std::vector<std::string>& metrics);
// Nadaraya-Watson: training points, truth and prediction, beside the query x key kernel map;
// several runs side by side (their fits in one row, their kernel maps below).
std::string fit_picture(const ResultsReader& file, const std::vector<std::string>& runs);

// Whether a run keeps the input its attention is drawn on (an image, a graph, speech frames)
// and recorded an example to draw: the report shows that picture with the run.
bool draws_on_input(const ResultsReader& file, const std::string& run);

// What a run has to plot: the recorded examples, and whether it has regression data.
std::vector<std::string> recorded_examples(const ResultsReader& file, const std::string& run);
bool has_fit(const ResultsReader& file, const std::string& run);
// What the rows and columns of a kind of map are: {"queries: output tokens", "keys: source tokens"}.
std::pair<std::string, std::string> map_axes(const std::string& map);
// The positions of a map's rows (or columns) to show: those whose label is not <pad> (a
// position without a label is kept).
std::vector<std::size_t> unpadded(std::size_t n, const std::vector<std::string>& labels);

}  // namespace attn
