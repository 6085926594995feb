#!/usr/bin/env bash
# Installs what keychainfs needs on Debian/Ubuntu and is missing: the C libraries it links
# (libfuse3, libsqlite3, libsodium), fuse3 (fusermount3), pkg-config, attr (getfattr/setfattr) and
# openssl (the tests make certificates with it), git and python3 (the credential-helper and sync tests drive git and
# clone from a git-http-backend behind a small Python server), libssl-dev (the Security module's RSA, SHA-224
# and AES-GCM come from libcrypto) python3-cryptography (the SecKey interop tests), dpkg-dev (dpkg-shlibdeps for make deb) and man-db
# (make deb-check reads the installed man page). The Secret Service links sd-bus (libsystemd-dev), starts
# dbus-daemon for --private-bus, and its tests drive the clients Debian ships: secret-tool (libsecret-tools),
# python3-secretstorage, python3-keyring and docker-credential-secretservice (golang-docker-credential-helpers).
# The TPM 2.0 (docs/tpm.md) is reached through tpm2-tss (libtss2-dev, its swtpm TCTI libtss2-tcti-swtpm0);
# tests and machines without a TPM use swtpm, and the tests check interop with tpm2-tools and tpm2-openssl.
# Uses sudo when not root. Swift itself must already be installed (swift.org toolchain).
set -euo pipefail

packages=(libfuse3-dev fuse3 libsqlite3-dev libsodium-dev pkg-config attr openssl git python3 libssl-dev python3-cryptography
  dpkg-dev man-db libsystemd-dev dbus-daemon libsecret-tools python3-secretstorage python3-keyring golang-docker-credential-helpers
  libtss2-dev libtss2-tcti-swtpm0 swtpm tpm2-tools tpm2-openssl)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "installing: ${missing[*]}"
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "Swift 6 is not on PATH: install a toolchain from swift.org first" >&2; exit 1; }
[[ -c /dev/fuse ]] || { echo "/dev/fuse is missing: load the fuse module (modprobe fuse)" >&2; exit 1; }
