#!/usr/bin/env bash
# The cost of going through Slurm and merge, on a one-node cluster on this machine:
#  1. bench/sweep-8.yaml (8 runs, EPOCHS epochs: default 120, about 5 s a run) with
#     `attnlab run --threads 2`, against the same sweep as 4 array
#     tasks of 2 runs (`attnlab slurm --tasks 4 --submit`, 2 tasks at once on 2 CPUs), timed from
#     submission until the merged file is written;      target: slurm / local <= 1.15
#  2. a 96-run sweep (sweep-8 with seeds 1..96, 2 epochs) run as 8 parts, then `attnlab merge`:
#     the merge against the sum of the parts' wall times;  target: merge / sweep < 0.05
# Prints the figures and one JSON line. Needs slurm-wlm and munge (bash .ci/setup test installs them).
# Slurm itself takes seconds to start tasks and to start a job whose dependency is met (on the
# test cluster, an array of four 1-s sleeps, 2 at once, plus a dependent job: 6 s): runs of a
# second or less are dominated by that, whatever attnlab does (EPOCHS=8 shows it).
#   [EPOCHS=120] bash bench/slurm_overhead.sh [BUILD_DIR]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'bash "$here/../tests/slurm/cluster.sh" stop "$tmp/cluster"; rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

eval "$(bash "$here/../tests/slurm/cluster.sh" start "$tmp/cluster")"
epochs=(--set "training.epochs=${EPOCHS:-120}")

start=$(now)
"$build/attnlab" run "$here/sweep-8.yaml" "${epochs[@]}" --threads 2 --output "$tmp/local.h5" > /dev/null
local_s=$(since "$start")
echo "sweep-8 (${EPOCHS:-120} epochs), attnlab run --threads 2: $local_s s"

start=$(now)
"$build/attnlab" slurm "$here/sweep-8.yaml" "${epochs[@]}" --tasks 4 --output-dir "$tmp/slurm" --output "$tmp/merged.h5" --submit > /dev/null
until [ -f "$tmp/merged.h5" ] && [ -z "$(squeue -h -o %i)" ]; do sleep 0.2; done
slurm_s=$(since "$start")
echo "sweep-8, attnlab slurm --tasks 4 (2 at once) + merge: $slurm_s s"
/usr/bin/python3 "$here/../tests/tools/compare_results.py" "$tmp/local.h5" "$tmp/merged.h5" > /dev/null

seeds=$(seq -s, 1 96)
sweep_s=0
for k in 1 2 3 4 5 6 7 8; do
  start=$(now)
  "$build/attnlab" run "$here/sweep-8.yaml" --set "sweep.seed=[$seeds]" --set training.epochs=2 --shard "$k/8" \
    --threads 2 --output "$tmp/part-$k.h5" > /dev/null
  sweep_s=$(awk -v a="$sweep_s" -v b="$(since "$start")" 'BEGIN { print a + b }')
done
start=$(now)
"$build/attnlab" merge "$tmp/merged-96.h5" "$tmp"/part-{1..8}.h5 > /dev/null
merge_s=$(since "$start")
echo "96 runs in 8 parts: runs $sweep_s s, merge $merge_s s"
printf '{"workload": "slurm_overhead", "epochs": %s, "local_s": %s, "slurm_s": %s, "slurm_ratio": %.3f, "sweep96_s": %s, "merge96_s": %s, "merge_share": %.4f}\n' \
  "${EPOCHS:-120}" "$local_s" "$slurm_s" "$(awk -v a="$slurm_s" -v b="$local_s" 'BEGIN { print a / b }')" "$sweep_s" "$merge_s" \
  "$(awk -v a="$merge_s" -v b="$sweep_s" 'BEGIN { print a / b }')"
