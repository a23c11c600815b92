// `attnlab report`: ONE self-contained HTML file (no network, opens from file://): a table of
// contents, the comparison table, the attention metrics per layer and head, and interactive
// panels drawn by the embedded report_viewer.js from the embedded data (report_data.hpp):
// training curves per sweep point (mean ± std bands, log y), an attention explorer (run,
// example, map, layer, head, epoch slider, heatmap, token view) and two runs side by side with
// their difference; then every run's status, metrics and config (swept and --set values
// marked), and the spec. docs/analysis.md shows it.
#pragma once

#include <string>

namespace attn {

std::string html_report(const std::string& results_path);

}  // namespace attn
