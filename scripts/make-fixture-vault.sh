#!/bin/sh
# Makes Tests/Fixtures/vault-2026-11-23: a vault written by the release of 2026-11-23 (commit 1f238df),
# with its device key inside (that release's default) and a passcode, for the migration test.
# Usage: scripts/make-fixture-vault.sh OLD_KEYCHAINFS_BINARY OUTPUT_DIR
set -eu
B=$1; OUT=$2
T=$(mktemp -d); V=$T/vault; M=$T/mnt
trap '"$B" unmount "$M" 2>/dev/null || fusermount3 -uz "$M" 2>/dev/null || true; rm -rf "$T"' EXIT
"$B" init --test-device "$V"
"$B" mount "$V" "$M"
item() {  # class service account accessibility secret
    mkdir -p "$M/$1/$2/$3"
    setfattr -n user.kSecAttrAccessible -v "$4" "$M/$1/$2/$3"
    printf '%s' "$5" > "$M/$1/$2/$3/value"
}
item genp fixture.always alice dk 'fixture secret dk'
item genp fixture.always bob dku 'fixture secret dku'
item genp fixture.afterfirst carol ck 'fixture secret ck'
item genp fixture.afterfirst dave cku 'fixture secret cku'
item genp fixture.unlocked erin ak 'fixture secret ak'
item genp fixture.unlocked frank aku 'fixture secret aku'
item inet fixture.example.com grace ck 'fixture secret inet'
setfattr -n user.kSecAttrLabel -v 'Fixture label' "$M/genp/fixture.always/alice"
printf 'fixture-1234\n' | "$B" device passcode set --mount "$M" --passcode-stdin
item genp fixture.passcode heidi akpu 'fixture secret akpu'
"$B" unmount "$M"
rm -rf "$OUT"; mkdir -p "$OUT"
cp "$V/vault.json" "$V/keybag" "$V/items.sqlite" "$V/device.key" "$OUT/"
for f in "$V"/items.sqlite-wal; do [ -s "$f" ] && cp "$f" "$OUT/"; done
printf 'fixture-1234' > "$OUT/../vault-2026-11-23.passcode"
ls -la "$OUT"
