#!/usr/bin/env bash
# make check-ecosystem: Examples/ServerApp, a server package (swift-nio, swift-system, swift-certificates)
# beside our Security, LocalAuthentication, CryptoKit and KeychainTesting, built from clean and run:
#   1. with the documented module aliases, our modules built first (`--target KeychainFSSecurity`: an
#      aliased target is built under its new name), then the rest;
#   2. with the aliases, in SwiftPM's own order;
#   3. without the aliases, our modules first: swift-certificates' X509 tests `#if canImport(Security)`, but
#      our Security depends on X509, so X509 is compiled before our module exists and never sees it
#      (docs/swift-api.md, "Beside other packages"); were that to change, this build fails in X509;
#   4. without the aliases, in SwiftPM's order.
set -euo pipefail
cd "$(dirname "$0")/../Examples/ServerApp"
clean() { rm -rf .build/x86_64-unknown-linux-gnu .build/debug .build/debug.yaml .build/build.db; }
run() { swift run --skip-build ServerApp; }

echo "== 1. aliased, our modules first"
clean
swift build --target KeychainFSSecurity
swift build
run

echo "== 2. aliased, SwiftPM's order"
clean
swift build
run

echo "== 3. not aliased, our modules first"
clean
SERVERAPP_ALIAS=0 swift build --target Security
SERVERAPP_ALIAS=0 swift build
SERVERAPP_ALIAS=0 run

echo "== 4. not aliased, SwiftPM's order"
clean
SERVERAPP_ALIAS=0 swift build
SERVERAPP_ALIAS=0 run
clean
echo "check-ecosystem: ok"
