// The report's section "Heads taken apart": for each run that `attnlab ablate` analysed, the
// change of its headline metric with each head switched off (a layers x heads heatmap per map;
// hovering a cell shows its value), each layer's attention switched off, the heads' importance
// (Michel et al. 2019) and the pruning curve. Drawn on the server as SVG, like every picture.
#pragma once

#include <string>
#include <vector>

#include "lab/results/results_format.hpp"

namespace attn {

// The section's HTML body; "" when no run has an analysis.
std::string heads_section(const ResultsReader& file, const std::vector<RunInfo>& runs);

}  // namespace attn
