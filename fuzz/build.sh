#!/usr/bin/env bash
# Builds keychainfs-fuzz with AddressSanitizer and libFuzzer's coverage into .build-fuzz/ (gitignored).
# SwiftPM names an executable's entry point itself, so libFuzzer's own main cannot be linked
# (-sanitize=fuzzer): the modules get the same instrumentation (-sanitize-coverage as libFuzzer's),
# the link gets libFuzzer without main, and the driver calls LLVMFuzzerRunDriver.
set -euo pipefail
cd "$(dirname "$0")/.."
clang_lib=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/clang
fuzzer_lib=$(ls "$clang_lib"/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -1)
swift build --build-path .build-fuzz --product keychainfs-fuzz \
  -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
  -Xswiftc -DFUZZING -Xlinker "$fuzzer_lib" -Xlinker -lstdc++ 2>&1 | grep -v "Cannot export local symbol" >&2
echo ".build-fuzz/debug/keychainfs-fuzz"
