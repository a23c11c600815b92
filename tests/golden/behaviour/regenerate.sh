#!/usr/bin/env bash
# Regenerates the behaviour golden files: each spec here run by the attnlab binary given.
# They were made by the code of commit 5e5723e (before the core/lab redesign) and are the
# reference test_behaviour_golden.cpp holds every later version to: bit-identical parameters,
# history and attention maps for the same spec and seed. Regenerate them only for a change
# that is MEANT to change what training computes, and say so in the commit.
#   usage: bash tests/golden/behaviour/regenerate.sh build/attnlab
set -euo pipefail
attnlab=$(cd "$(dirname "${1:?usage: regenerate.sh PATH/TO/attnlab}")" && pwd)/$(basename "$1")
cd "$(dirname "$0")"
for spec in *.yaml; do
  "$attnlab" run "$spec" --threads 2 --force
done
