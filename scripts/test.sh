#!/usr/bin/env bash
# Runs every test: engine rules, naming rules, and the filesystem through real FUSE mounts.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
mounts() { awk '$3 == "fuse.keychainfs" {print $2}' /proc/self/mounts | sort; }
before=$(mounts)
# Vaults the tests make keep their device keys in a throwaway state directory, not the machine's.
XDG_STATE_HOME=$(mktemp -d /tmp/kcfs-test-state.XXXXXX)
export XDG_STATE_HOME
trap 'rm -rf "$XDG_STATE_HOME"' EXIT
swift test --skip-build
# No test may leave a mount behind, even a failing one (mounts that were there before are not ours).
left=$(comm -13 <(echo "$before") <(mounts))
if [[ -n "$left" ]]; then
  echo "a test left a keychainfs mount behind: $left" >&2
  exit 1
fi
