#!/usr/bin/env bash
# `make fuzz`: builds the sanitizer fuzzer (fuzz/build.sh) and runs every target for FUZZ_SECONDS (default 120)
# from its committed corpus (fuzz/corpus/TARGET) plus what earlier runs found (.build-fuzz/corpus/TARGET).
# A crash or a broken property is saved as .build-fuzz/artifacts/TARGET/crash-*; commit it into
# fuzz/corpus/TARGET once fixed and it becomes a regression test (Tests/FuzzCorpusTests replays it).
# Leak detection is off (-detect_leaks=0, ASAN_OPTIONS=detect_leaks=0): LeakSanitizer reports Swift
# objects as leaked (Data buffers from Foundation's JSONDecoder, FileManager and our keyed hashes) that
# the runtime still reaches through pointers whose spare bits carry enum tags, which it cannot follow.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-120}
targets=${FUZZ_TARGETS:-"codec frames query der names xattr vault sync members workflow keyfiles secretservice"}
binary=$(fuzz/build.sh) || exit 1
status=0
for target in $targets; do
  mkdir -p ".build-fuzz/corpus/$target" ".build-fuzz/artifacts/$target"
  log=".build-fuzz/$target.log"
  ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no FUZZ_TARGET=$target timeout $((seconds + 60)) "$binary" \
    ".build-fuzz/corpus/$target" "fuzz/corpus/$target" -max_total_time="$seconds" -detect_leaks=0 \
    -artifact_prefix=".build-fuzz/artifacts/$target/" -print_final_stats=1 >"$log" 2>&1
  code=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  printf '%-7s %12s executions in %ss, exit %s\n' "$target" "${runs:-?}" "$seconds" "$code"
  if [[ $code -ne 0 ]]; then
    status=1
    grep -E 'ERROR|violated|Fatal error' "$log" | head -3
    ls ".build-fuzz/artifacts/$target"
  fi
done
exit $status
