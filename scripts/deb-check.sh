#!/usr/bin/env bash
# Installs the .deb for real (dpkg -i), uses it (--help, man keychainfs, a bash completion), removes it
# (dpkg -r) and checks that nothing of it is left. Run as root (CI is).
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(ls -t dist/keychainfs_*.deb | head -1)
dpkg-query -W keychainfs >/dev/null 2>&1 && { echo "keychainfs is already installed: refusing to touch it" >&2; exit 1; }
trap 'dpkg -r keychainfs >/dev/null 2>&1 || true' EXIT
dpkg -i "$deb" >/dev/null
keychainfs --help | grep -q "USAGE: keychainfs"
keychainfs --version | grep -q "^[0-9]"
MANPAGER=cat man keychainfs 2>/dev/null | grep -qi "keychainfs"
test -f /usr/share/man/man1/keychainfs-run.1.gz
bash -c 'source /usr/share/bash-completion/completions/keychainfs && complete -p keychainfs' | grep -q keychainfs
test -x /sbin/mount.fuse.keychainfs -o -x /usr/sbin/mount.fuse.keychainfs
dpkg -r keychainfs >/dev/null
trap - EXIT
test ! -e /usr/bin/keychainfs && test ! -e /usr/share/man/man1/keychainfs.1.gz
echo "deb-check: installed, ran --help, man and a completion, removed: ok"
