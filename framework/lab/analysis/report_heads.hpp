// The report's grids of heads, layers x heads heatmaps drawn on the server as SVG like every
// picture (hovering a cell shows its value):
//   "Heads taken apart": for each run that `attnlab ablate` analysed, the change of its headline
//     metric with each head switched off, each layer's attention switched off, the heads'
//     importance (Michel et al. 2019) and the pruning curve;
//   "Head detectors": for each sweep point and self-attention map, the detectors of
//     docs/concepts/what-attention-computes.md (diagonal, previous token, first token, induction)
//     per layer and head, the mean over the point's seeds.
// Each grid has an anchor, listed for the table of contents.
#pragma once

#include <string>
#include <vector>

#include "lab/results/results_format.hpp"

namespace attn {

// A place in a section that the table of contents links to.
struct SectionPart {
  std::string id, title;
};

// A section's HTML and its parts; the HTML is "" when there is nothing to show.
struct SectionBody {
  std::string html;
  std::vector<SectionPart> parts;
};

SectionBody heads_section(const ResultsReader& file, const std::vector<RunInfo>& runs);
SectionBody detectors_section(const ResultsReader& file, const std::vector<RunInfo>& runs);

// An HTML id made of `text`: letters, digits, '-' and '_' kept, anything else '-'.
std::string anchor(const std::string& text);

}  // namespace attn
