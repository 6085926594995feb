#!/usr/bin/env bash
# Runs the test kit's parallel suite (200 tests, each on its own device, most of them locking, rebooting or
# answering prompts) N times in a row (default 20), stopping at the first failure: cross-talk between
# devices would show as a flaky run (issue 24). Expects a build (scripts/test.sh, or swift build --build-tests).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 && $runs -le 1000 ]] || { echo "usage: $0 [RUNS (1-1000)]" >&2; exit 2; }
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
for ((i = 1; i <= runs; i++)); do
  log="$state/run-$i.log"
  if ! XDG_STATE_HOME=$state swift test --skip-build --filter 'ParallelIsolationTests|ProcessBindingTests' > "$log" 2>&1; then
    cat "$log" >&2
    echo "run $i of $runs failed" >&2
    exit 1
  fi
done
echo "the parallel suite passed $runs runs in a row"
