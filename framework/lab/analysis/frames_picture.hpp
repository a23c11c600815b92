// A frames run's attention drawn above its spectrogram (encoder_classifier on spoken_digits):
// for each layer, <cls>'s attention over the frames (the heads' mean, or one head) as a curve
// over time, above the utterance's log-mel frames as a heatmap (mel band x time). Where the
// curve peaks is where in the word the class was read from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnlab/models/model.hpp"
#include "lab/analysis/pictures.hpp"

namespace attn {

// frames [n, mels] of which the first `length` are the utterance; map.weights [layer, head, 1 + n, 1 + n]
// (<cls> first) or [layer, head, n, n] (mean pooling: every frame's query, averaged).
// times [n]: each frame's time in seconds.
std::vector<std::string> frames_attention_pictures(const Tensor& frames, const Tensor& times, std::size_t length,
                                                   const AttentionMap& map, const AttentionView& view);

}  // namespace attn
