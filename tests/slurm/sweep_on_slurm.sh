#!/usr/bin/env bash
# attnlab on a real (one-node) Slurm cluster, end to end. Run by tests/test_slurm.cpp in CI.
#   bash tests/slurm/sweep_on_slurm.sh BUILD_DIR WORK_DIR
# 1. starts munged, slurmctld and slurmd (tests/slurm/cluster.sh; stopped by their pids at exit);
# 2. runs tests/specs/good/tiny-sweep.yaml (4 runs, --set training.epochs=200) on this machine;
# 3. `attnlab slurm --submit --runs-per-task 2`, cancels task 1 with scancel once its first run
#    is a few epochs in, waits for the array (the merge job is cancelled: its dependency failed);
# 4. `attnlab slurm --submit` again: only task 1 is submitted; its run resumes from the checkpoint;
# 5. compares the merged file with the one-machine file (tests/tools/compare_results.py).
# Each step prints what it does; any failure exits 1 with the reason (and the task logs).
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mkdir -p "$2" && cd "$2" && pwd)
chmod 755 "$work"  # munged wants every directory above its socket (in $work/cluster) world-executable
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
attnlab=$build/attnlab
spec=$root/tests/specs/good/tiny-sweep.yaml
set_epochs=(--set training.epochs=200)  # a few seconds per run: time to cancel one mid-run
state=$work/cluster

fail() {
  echo "FAILED: $*" >&2
  for f in "$work"/slurm/logs/*.out; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
  exit 1
}
trap 'bash "$here/cluster.sh" stop "$state"' EXIT

# Waits until no job of ours is pending or running (at most $1 seconds).
wait_for_jobs() {
  for ((i = 0; i < $1 * 2; i++)); do
    [ -z "$(squeue -h -o %i)" ] && return 0
    sleep 0.5
  done
  squeue >&2
  fail "jobs still queued after $1 s"
}
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }

echo "== starting a one-node Slurm cluster in $state"
eval "$(bash "$here/cluster.sh" start "$state")" || fail "the cluster did not start (reason above)"
sinfo

echo "== the sweep on this machine"
"$attnlab" run "$spec" "${set_epochs[@]}" --threads 2 --output "$work/one-machine.h5" > "$work/one-machine.log"

echo "== attnlab slurm --submit: 4 runs as 2 tasks of 2"
"$attnlab" slurm "$spec" "${set_epochs[@]}" --runs-per-task 2 --output-dir "$work/slurm" --output "$work/merged.h5" --submit \
  | tee "$work/submit-1.log"
array=$(sed -n 's/^submitted array job \([0-9]*\).*/\1/p' "$work/submit-1.log")
merge=$(sed -n 's/^submitted merge job \([0-9]*\).*/\1/p' "$work/submit-1.log")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids printed"

echo "== cancelling task 1 (array job $array) in the middle of its first run"
for ((i = 0; i < 240; i++)); do
  grep -qE "epoch +[0-9]+/200" "$work/slurm/logs/task-1.out" 2>/dev/null && break
  sleep 0.25
done
grep -qE "epoch +[0-9]+/200" "$work/slurm/logs/task-1.out" || fail "task 1 never showed an epoch"
scancel "${array}_1"
wait_for_jobs 120
echo "task 1: $(job_state "${array}_1"); task 2: $(job_state "${array}_2"); merge job: $(job_state "$merge")"
[ "$(job_state "${array}_2")" = COMPLETED ] || fail "task 2 did not complete"
[ "$(job_state "${array}_1")" != COMPLETED ] || fail "task 1 completed although it was cancelled"
[ ! -e "$work/merged.h5" ] || fail "the merge ran although task 1 failed"
ls "$work/slurm/part-1.h5.checkpoints/" | grep -q . || fail "task 1 left no checkpoint"

echo "== attnlab slurm --submit again: only the unfinished task"
"$attnlab" slurm "$spec" "${set_epochs[@]}" --runs-per-task 2 --output-dir "$work/slurm" --output "$work/merged.h5" --submit \
  | tee "$work/submit-2.log"
grep -q "2 tasks (1 to run" "$work/submit-2.log" || fail "the second submission did not keep to task 1"
grep -q "(tasks 1)" "$work/submit-2.log" || fail "the second array is not task 1 alone"
wait_for_jobs 180
grep -q "continued from its checkpoint after epoch" "$work/slurm/logs/task-1.out" || fail "task 1's run did not resume from its checkpoint"
[ -f "$work/merged.h5" ] || fail "no merged file (merge log above)"

echo "== the merged file against the one-machine file"
/usr/bin/python3 "$root/tests/tools/compare_results.py" "$work/one-machine.h5" "$work/merged.h5" || fail "the merged file differs"
echo "slurm sweep: ok"
