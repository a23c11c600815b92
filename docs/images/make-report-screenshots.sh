#!/usr/bin/env bash
# Makes the pictures of the interactive report in docs/analysis.md: runs the demo experiment,
# writes its report, and has headless Chromium (tests/browser/report_browser.py) photograph the
# explorer, side-by-side and curve sections.
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
