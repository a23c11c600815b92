#!/usr/bin/env bash
# Makes the pictures of the interactive report in docs/analysis.md: runs the demo experiment,
# writes its report, and has headless Chromium (tests/browser/report_browser.py) photograph the
# explorer, side-by-side and curve sections, the curves against the input length, the head
# detectors and the heads taken apart by attnlab ablate.
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
# the heads taken apart: the Transformer of transformer-reverse.yaml, after attnlab ablate
"$build/attnlab" run experiments/transformer-reverse.yaml --output "$work/heads.h5" --threads 2 > /dev/null
"$build/attnlab" ablate "$work/heads.h5" --run heads-4 > /dev/null 2>&1
"$build/attnlab" report "$work/heads.h5" -o "$work/heads.html"
for section in heads detectors; do
  /usr/bin/python3 tests/browser/report_browser.py "$work/heads.html" open --screenshot "docs/images/report-$section.png" --section "$section"
done
