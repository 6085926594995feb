#!/usr/bin/env bash
# Installs the newest dist/keychainfs_*.deb for real (dpkg -i), uses it (--help, --version, man keychainfs,
# the bash completion, the mount helper), removes it (dpkg -r) and checks the machine is as it was: none of
# the package's files left, none of the files that were there before touched. If anything fails halfway
# the package is removed on the way out. Refuses to run when keychainfs is installed from elsewhere. Root.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $(id -u) -eq 0 ]] || { echo "deb-check: run as root (it installs the package with dpkg -i)" >&2; exit 1; }
deb=$(ls -t dist/keychainfs_*.deb 2>/dev/null | head -1)
[[ -n $deb ]] || { echo "deb-check: no dist/keychainfs_*.deb (make deb)" >&2; exit 1; }
if dpkg-query -W -f='${Status}' keychainfs 2>/dev/null | grep -q installed; then
  echo "deb-check: the keychainfs package is already installed: refusing to touch it" >&2; exit 1
fi
# Every path the package would install must be free (a keychainfs from `make install` or a copy elsewhere).
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {sub(/^\.\//, "/", $6); print $6}')
for f in $files; do
  [[ ! -e $f && ! -L $f ]] || { echo "deb-check: $f exists already (keychainfs installed from elsewhere?): refusing" >&2; exit 1; }
done
before=$(dpkg-query -W -f='${Package} ${Version}\n' | sha256sum)

trap 'echo "deb-check: failed; removing the package" >&2; dpkg -r keychainfs >/dev/null 2>&1 || true' EXIT
dpkg -i "$deb" >/dev/null
keychainfs --help | grep -q "USAGE: keychainfs"
keychainfs --version | grep -q "^[0-9]"
command -v git-credential-keychainfs docker-credential-keychainfs >/dev/null
# man-db renders the installed page; where dpkg excludes /usr/share/man (minimised images), the page is
# read from the package instead, so the check still proves the page is there and renders.
page=/usr/share/man/man1/keychainfs.1.gz
if [[ -f $page ]]; then
  MANPAGER=cat MANWIDTH=80 man keychainfs | grep -q "keychainfs"
  MANPAGER=cat MANWIDTH=80 man keychainfs.mount | grep -q -- "--allow-root"
else
  grep -rqs "path-exclude=*/usr/share/man" /etc/dpkg/dpkg.cfg.d/ || { echo "deb-check: $page was not installed" >&2; exit 1; }
  tmp=$(mktemp -d); dpkg-deb -x "$deb" "$tmp"
  MANPAGER=cat MANWIDTH=80 man -l "$tmp$page" | grep -q "keychainfs"; rm -rf "$tmp"
fi
bash -c 'source /usr/share/bash-completion/completions/keychainfs && complete -p keychainfs' | grep -q "keychainfs"
# The mount helper runs (without arguments it prints its usage and exits 1).
{ /sbin/mount.fuse.keychainfs 2>&1 || true; } | grep -q "usage: mount.fuse.keychainfs"
test -f /usr/lib/systemd/user/keychainfs@.service
grep -qx "Exec=/usr/bin/keychainfs secret-service" /usr/share/dbus-1/services/keychainfs.secrets.service
dpkg -r keychainfs >/dev/null
trap - EXIT

for f in $files; do
  [[ ! -e $f && ! -L $f ]] || { echo "deb-check: $f is still there after dpkg -r" >&2; exit 1; }
done
[[ $(dpkg-query -W -f='${Package} ${Version}\n' | sha256sum) == "$before" ]] || { echo "deb-check: the installed package set changed" >&2; exit 1; }
echo "deb-check: installed $deb, ran --help, man and a completion, removed it: ok"
