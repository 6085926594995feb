#!/usr/bin/env bash
# scripts/test.sh must detach only the mounts of its own run. This runs it on
# ForeignMountTests alone, which mounts a vault outside the run's directory during the run (as another
# user or another test run would); the mount must still be there afterwards, and test.sh must not call it
# left behind. Fails (exit 1) if test.sh touched it. Takes about a minute (test.sh's incremental build).
set -euo pipefail
cd "$(dirname "$0")/../.."
foreign=$(mktemp -d /tmp/kcfs-foreign.XXXXXX)
keychainfs="$(swift build --show-bin-path)/keychainfs"
cleanup() {
  if grep -q " $foreign/mnt fuse.keychainfs " /proc/self/mounts; then
    timeout 30 "$keychainfs" unmount "$foreign/mnt" >/dev/null 2>&1 || fusermount3 -uz "$foreign/mnt" 2>/dev/null || umount -l "$foreign/mnt" || true
  fi
  rm -rf "$foreign"
}
trap cleanup EXIT
status=0
KEYCHAINFS_TEST_FILTER=ForeignMountTests KEYCHAINFS_TEST_FOREIGN_MOUNT=$foreign timeout 900 scripts/test.sh || status=$?
if ! grep -q " $foreign/mnt fuse.keychainfs " /proc/self/mounts; then
  echo "FAIL: scripts/test.sh detached $foreign/mnt, a mount it did not make" >&2
  exit 1
fi
if [[ $status -ne 0 ]]; then
  echo "FAIL: scripts/test.sh failed ($status) with another run's mount on the machine" >&2
  exit 1
fi
echo "ok: scripts/test.sh left $foreign/mnt alone"
