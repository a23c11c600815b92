// The report page's script and style sheet, compiled in from report_viewer.js and report.css
// by embed_text.py (a build step in framework/lab/meson.build).
#pragma once

namespace attn {

extern const char report_viewer_js[];
extern const char report_css[];

}  // namespace attn
