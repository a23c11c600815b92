#!/usr/bin/env bash
# Makes the pictures of the interactive report in docs/analysis.md: runs the demo experiment,
# writes its report, and has headless Chromium (tests/browser/report_browser.py) photograph the
# explorer, side-by-side and curve sections, and the curves against the input length.
#   bash docs/images/make-report-screenshots.sh [build]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/attnlab" run experiments/bahdanau-reverse.yaml --output "$work/demo.h5" --threads 2 > /dev/null
"$build/attnlab" report "$work/demo.h5" -o "$work/report.html"
for section in explorer side-by-side curves; do
  /usr/bin/python3 tests/browser/report_browser.py "$work/report.html" open \
    --screenshot "docs/images/report-$section.png" --section "$section"
done
# the curves against the input length: the quarter-size positional experiment (evaluation.lengths)
"$build/attnlab" run experiments/positional-extrapolation-small.yaml --output "$work/lengths.h5" --threads 2 > /dev/null
"$build/attnlab" report "$work/lengths.h5" -o "$work/lengths.html"
/usr/bin/python3 tests/browser/report_browser.py "$work/lengths.html" open --screenshot docs/images/report-lengths.png --section lengths
