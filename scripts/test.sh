#!/usr/bin/env bash
# Runs every test: engine rules, naming rules, and the filesystem through real FUSE mounts.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build
# No test may leave a mount behind, even a failing one.
if grep -q "fuse.keychainfs" /proc/self/mounts; then
  echo "a test left a keychainfs mount behind:" >&2
  grep "fuse.keychainfs" /proc/self/mounts >&2
  exit 1
fi
