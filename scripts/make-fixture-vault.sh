#!/bin/sh
# Makes a fixture vault written by a release, for the tests that open every earlier format
# (EveryReleaseVaultTests): Tests/Fixtures/vault-NAME with a passcode (Tests/Fixtures/vault-NAME.passcode)
# and, for formats that keep it outside the vault, its device key (Tests/Fixtures/vault-NAME.device.key; a
# test points the copy's vault.json at it). Made so far, one per vault format shipped: 2026-11-23 (the
# release 1f238df, format 1, device key inside), format2-637bccf (a build of 637bccf, the last commit of
# format 2), format3-2aa73fb (a build of 2aa73fb: format 3 as the release 91dd6f5 writes it).
# Usage: scripts/make-fixture-vault.sh RELEASE_KEYCHAINFS_BINARY NAME
set -eu
B=$1; NAME=$2; OUT=Tests/Fixtures/vault-$NAME
T=$(mktemp -d); V=$T/vault; M=$T/mnt
trap '"$B" unmount "$M" 2>/dev/null || fusermount3 -uz "$M" 2>/dev/null || true; rm -rf "$T"' EXIT
if "$B" init --help 2>&1 | grep -q -- --device-key; then
    "$B" init --test-device --device-key "$T/device.key" "$V"
else
    "$B" init --test-device "$V"
fi
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
# Fold the write-ahead log into the database file, so the fixture is the database alone.
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' "$V/items.sqlite"
rm -rf "$OUT"; mkdir -p "$OUT"
cp "$V/vault.json" "$V/keybag" "$V/items.sqlite" "$OUT/"
if [ -f "$V/device.key" ]; then cp "$V/device.key" "$OUT/"; else cp "$T/device.key" "$OUT.device.key"; fi
for f in "$V"/items.sqlite-wal; do [ -s "$f" ] && cp "$f" "$OUT/"; done
printf 'fixture-1234' > "$OUT.passcode"
ls -la "$OUT"
