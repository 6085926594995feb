#!/usr/bin/env bash
# Installs what is missing, builds keychainfs (release) and mounts a demo vault with a few items
# at ./demo/mnt, then prints what to try. Run it again to remount the same vault.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --static-swift-stdlib --product keychainfs
kc="$PWD/.build/release/keychainfs"
vault="$PWD/demo/vault" mnt="$PWD/demo/mnt" passcode=1234

"$kc" unmount "$mnt" >/dev/null 2>&1 || true
fresh=0
if [[ ! -d "$vault" ]]; then "$kc" init "$vault" --test-device; fresh=1; fi
"$kc" mount "$vault" "$mnt"
if [[ $fresh -eq 1 ]]; then
  mkdir -p "$mnt/genp/com.example.api/deploy" "$mnt/genp/com.example.db/admin" "$mnt/genp/com.example.db/backup"
  printf 'api-token-0f3e9c' > "$mnt/genp/com.example.api/deploy/value"
  setfattr -n user.kSecAttrLabel -v "Deploy token" "$mnt/genp/com.example.api/deploy"
  printf 'correct horse battery staple' > "$mnt/genp/com.example.db/admin/value"
  setfattr -n user.kSecAttrAccessible -v kSecAttrAccessibleAfterFirstUnlock "$mnt/genp/com.example.db/backup"
  printf 'backup-key-77' > "$mnt/genp/com.example.db/backup/value"
  echo "$passcode" | "$kc" device passcode set --mount "$mnt" --passcode-stdin
else
  echo "$passcode" | "$kc" device unlock --mount "$mnt" --passcode-stdin
fi

cat <<TOUR

keychainfs demo: vault $vault mounted at $mnt (device passcode: $passcode)

  export PATH="$PWD/.build/release:\$PATH"
  find $mnt                                              # the items
  cat $mnt/genp/com.example.api/deploy/value             # a secret
  getfattr -d $mnt/genp/com.example.api/deploy           # its attributes
  keychainfs device lock --mount $mnt
  cat $mnt/genp/com.example.api/deploy/value             # Permission denied (WhenUnlocked)
  cat $mnt/genp/com.example.db/backup/value              # still works (AfterFirstUnlock)
  keychainfs device unlock --mount $mnt                  # passcode $passcode
  keychainfs device status --mount $mnt
  keychainfs unmount $mnt
TOUR
