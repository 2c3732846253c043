#!/usr/bin/env bash
# The whole test suite: set up, then build and run every test in a normal build, fuzz the parser
# for a bounded time, and run every test again in a sanitizer build (-fsanitize=address,undefined).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)

echo "== normal build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== fuzzing the parser for ${MBDC_FUZZ_SECONDS:-30} s"
bash scripts/fuzz.sh "${MBDC_FUZZ_SECONDS:-30}"

echo "== sanitizer build (address, undefined)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMBDC_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")
