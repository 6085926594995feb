#!/usr/bin/env bash
# Runs the test kit's parallel suite (200 tests, each on its own device, most of them locking, rebooting or
# answering prompts) and ProcessBindingTests N times in a row (default 20), stopping at the first failure:
# cross-talk between devices would show as a flaky run (docs/test-kit.md, "Isolation"). scripts/test.sh runs it. One test process
# repeats the suites (Swift Testing's --repetitions): each run makes 200 new devices, and what one run left
# behind would reach the next, without paying for a new process per run. Expects a build (scripts/test.sh,
# or swift build --build-tests).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 && $runs -le 1000 ]] || { echo "usage: $0 [RUNS (1-1000)]" >&2; exit 2; }
tests="$(swift build --show-bin-path)/keychainfsPackageTests.xctest"
[[ -x $tests ]] || { echo "no test build at $tests: run swift build --build-tests first" >&2; exit 2; }
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
log="$state/runs.log"
start=$SECONDS
# A deadline for the whole: 20 runs take 1-2 minutes on a loaded 2-core machine; a hang must not stall CI.
if ! XDG_STATE_HOME=$state timeout --kill-after=10 $((120 + runs * 30)) "$tests" --testing-library swift-testing \
  --filter 'ParallelIsolationTests|ProcessBindingTests' --repetitions "$runs" --repeat-until fail > "$log" 2>&1; then
  grep -E '✘|Iteration|failed' "$log" | tail -n 60 >&2 || tail -n 60 "$log" >&2
  echo "the parallel suite failed: the lines above show the run (iteration) and the test" >&2
  exit 1
fi
iterations=$(grep -c 'Iteration [0-9]* ended' "$log" || true)
if [[ $runs -gt 1 && $iterations -ne $runs ]]; then
  tail -n 40 "$log" >&2
  echo "expected $runs runs, the log shows $iterations" >&2
  exit 1
fi
echo "the parallel suite passed $runs runs in a row ($((SECONDS - start)) s)"
