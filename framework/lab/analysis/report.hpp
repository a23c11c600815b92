// `attnlab report`: ONE self-contained HTML file (inline SVG and CSS, no scripts, no network)
// with the spec, the comparison table, the overlaid training curves, and every run's metrics
// and attention heatmaps with their tokens.
#pragma once

#include <string>

namespace attn {

std::string html_report(const std::string& results_path);

}  // namespace attn
