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
# On the way out, even when a test process crashed before its own clean-up (its daemons gone, their
# mounts dead): detach every keychainfs mount that appeared during the run, so none is left on the machine.
new_mounts() { comm -13 <(echo "$before") <(mounts); }
cleanup() {
  for m in $(new_mounts); do umount -l "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null || true; done
  rm -rf "$XDG_STATE_HOME"
}
trap cleanup EXIT
swift test --skip-build
# Bounded fuzzing (SPEC §8; about 1.5 min): swift test replayed every committed fuzz corpus (FuzzCorpusTests);
# now 20,000 random filesystem operations against a model, and 8 processes × 1,500 operations with a ninth
# locking and unlocking, on real mounts. A failure prints the seed that replays it. `make fuzz` / `make soak`
# run the long versions.
python3 fuzz/fsfuzz.py --binary "$(swift build --show-bin-path)/keychainfs" --ops 20000
python3 fuzz/soak.py --binary "$(swift build --show-bin-path)/keychainfs" --processes 8 --ops 1500
# The package (root only: it installs for real; CI is root): built from the debug build above (on the
# toolchain's Swift runtime; a full release build does not fit CI's budget on 2 cores; `make deb` makes the
# self-contained release one), installed with dpkg -i, used (--help, man, a completion), removed.
if [[ $(id -u) -eq 0 ]]; then
  make --no-print-directory deb DEB_CONFIG=debug
  scripts/deb-check.sh
fi
# No test may leave a mount behind, even a failing one (mounts that were there before are not ours).
left=$(new_mounts)
if [[ -n "$left" ]]; then
  echo "a test left a keychainfs mount behind: $left" >&2
  exit 1
fi
