#!/usr/bin/env bash
# Wall time of an 8-run sweep with --threads 1 and --threads 2, in one go; prints one JSON line.
# usage: bash bench/sweep_scaling.sh [BUILD_DIR]      (target: ratio <= 0.55)
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
time_run() {
  local start end
  start=$(date +%s.%N)
  "$build/attnlab" run "$here/sweep-8.yaml" --threads "$1" --output "$tmp/t$1.h5" > "$tmp/log$1" 2>&1
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}
t1=$(time_run 1)
t2=$(time_run 2)
printf '{"workload": "sweep8", "runs": 8, "threads1_s": %.2f, "threads2_s": %.2f, "ratio": %.3f}\n' "$t1" "$t2" \
  "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b / a }')"
