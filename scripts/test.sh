#!/usr/bin/env bash
# Runs every test: engine rules, naming rules, and the filesystem through real FUSE mounts.
# KEYCHAINFS_TEST_FILTER=REGEX runs only the matching tests (swift test --filter), without the fuzzers and
# the package check.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The layout first (seconds): a file the formatter would change fails here, before the long build.
scripts/format.sh --check
swift build --build-tests
# The run's own directory: the tests make their vaults, mounts and device keys under $TMPDIR (KeychainFSTestSupport's
# TestDirectory, the fuzzers' tempfile), so the clean-up below touches only mounts under it, never another
# user's or another test run's. 0711: the throwaway users of AllowRootTests reach their homes inside it.
run_dir=$(mktemp -d /tmp/kcfs-run.XXXXXX)
chmod 711 "$run_dir"
export TMPDIR=$run_dir
export XDG_STATE_HOME=$run_dir/state
mkdir -m 700 "$XDG_STATE_HOME"
# The test kit's devices (and their mounts: device.mount()) in a directory of this run too: on /dev/shm when
# it is a tmpfs, where a device costs least (docs/test-kit.md), else inside the run's directory.
if [[ -w /dev/shm ]] && [[ $(findmnt -n -o FSTYPE --target /dev/shm 2>/dev/null) == tmpfs ]]; then
  kit_dir=$(mktemp -d /dev/shm/kcfs-run.XXXXXX)
else
  kit_dir=$run_dir/kit
  mkdir -m 700 "$kit_dir"
fi
export KEYCHAINTESTING_DIRECTORY=$kit_dir
own_mounts() {
  awk -v a="$run_dir/" -v b="$kit_dir/" '$3 == "fuse.keychainfs" && (index($2, a) == 1 || index($2, b) == 1) {print $2}' \
    /proc/self/mounts
}
# On the way out, even when a test process crashed before its own clean-up (its daemons gone, their
# mounts dead): detach this run's mounts, so none is left on the machine.
cleanup() {
  if [[ -n ${examples_pid:-} ]]; then kill -- "-$examples_pid" 2>/dev/null || true; fi
  for m in $(own_mounts); do umount -l "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null || true; done
  # A TPM simulator a crashed test (or a kit device it leaked) left.
  pkill -KILL -f -- "--tpmstate dir=$run_dir/" 2>/dev/null || true
  pkill -KILL -f -- "--tpmstate dir=$kit_dir/" 2>/dev/null || true
  rm -rf --one-file-system "$run_dir" "$kit_dir"  # never into a mount that would not detach
}
trap cleanup EXIT
if [[ -n ${KEYCHAINFS_TEST_FILTER:-} ]]; then
  swift test --skip-build --filter "$KEYCHAINFS_TEST_FILTER"
else
  # The example packages (each a graph of its own that builds swift-crypto again: minutes, mostly on one
  # core) build beside the suite, which spends much of its time waiting on mounts and daemons; their tests
  # run after it. A group of their own, so that an early exit stops the build too.
  examples_log="$run_dir/examples.log"
  setsid -w bash -c 'swift build --package-path Examples/TokenStore --build-tests &&
    swift package --package-path Examples/ServerApp show-dependencies' > "$examples_log" 2>&1 &
  examples_pid=$!
  swift test --skip-build
  # The test kit's virtual-clock tests again, alone: each within one second of wall time (docs/test-kit.md; in the
  # parallel run above other suites share the cores, so there they only prove that nothing waited).
  KEYCHAINTESTING_WALL_LIMIT_MS=1000 swift test --skip-build --filter VirtualClockTests
  # The test kit's parallel isolation suite, 20 runs in a row (docs/test-kit.md, "Isolation"; 1-2 minutes).
  scripts/kit-repeat.sh 20
  # The example package (Examples/TokenStore, docs/test-kit.md): depends on this repository by path, as a user's
  # package would, and tests its token store on the kit. A server package (Examples/ServerApp: swift-nio and
  # swift-system beside our Security and KeychainTesting) resolves: no target name of ours collides with
  # theirs (docs/swift-api.md, "Beside other packages"). `make check-ecosystem` builds and runs it.
  wait "$examples_pid" || { cat "$examples_log" >&2; echo "the example packages did not build or resolve" >&2; exit 1; }
  examples_pid=
  swift test --package-path Examples/TokenStore --skip-build
  # Bounded fuzzing (docs/spec.md §8; about 1.5 min): swift test replayed every committed fuzz corpus (FuzzCorpusTests);
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
  # This script itself: a run detaches only its own mounts, never another run's (ForeignMountTests). Its nested,
  # filtered run's output goes to a log, shown only if it fails.
  nested_log="$run_dir/test-sh-leaves-other-mounts.log"
  Tests/Scripts/test-sh-leaves-other-mounts.sh > "$nested_log" 2>&1 || { cat "$nested_log" >&2; exit 1; }
  tail -n 1 "$nested_log"
fi
# No test may leave a mount behind, even a failing one.
left=$(own_mounts)
if [[ -n "$left" ]]; then
  echo "a test left a keychainfs mount behind: $left" >&2
  exit 1
fi
