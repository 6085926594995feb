#!/usr/bin/env bash
# The code's one layout: swift-format (the toolchain's) with the repository's .swift-format, over every
# tracked Swift file. `scripts/format.sh` rewrites them; `scripts/format.sh --check` changes nothing and
# fails on any line the formatter would change (scripts/test.sh, so CI, runs the check first).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.swift')
if [[ ${1:-} == --check ]]; then
  swift-format lint --strict --parallel "${files[@]}"
else
  swift-format format --in-place --parallel "${files[@]}"
fi
