#!/usr/bin/env bash
# Regenerates the behaviour golden files: each spec here run by the attnlab binary given, and
# machine.txt, the build signature of the machine they were made on (`attnlab --version`).
# Regenerate them only for a change that is MEANT to change what training computes or what a
# results file holds, after checking that everything else is unchanged (say what in the commit;
# the history of these files is in `git log`), or on a new CI machine after checking agreement
# to 1e-4 (tests/test_behaviour_golden.cpp says why).
#   usage: bash tests/golden/behaviour/regenerate.sh build/attnlab
set -euo pipefail
attnlab=$(cd "$(dirname "${1:?usage: regenerate.sh PATH/TO/attnlab}")" && pwd)/$(basename "$1")
cd "$(dirname "$0")"
for spec in *.yaml; do
  "$attnlab" run "$spec" --threads 2 --force
done
# The machine they were made on (bit-for-bit comparisons hold there; elsewhere to 1e-4).
"$attnlab" --version | sed -n 2p > machine.txt
