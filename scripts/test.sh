#!/usr/bin/env bash
# The whole test suite: set up, then build and run every test in a normal build, fuzz both readers
# (the model language and URDF) for a bounded time each, and run every test again in a sanitizer
# build (-fsanitize=address,undefined). The fuzzers' regression inputs are replayed by ctest
# (test_fuzz_regressions) in both builds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)

echo "== normal build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== fuzzing each reader for ${MBDC_FUZZ_SECONDS:-20} s"
bash scripts/fuzz.sh --time "${MBDC_FUZZ_SECONDS:-20}" all

echo "== sanitizer build (address, undefined)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMBDC_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")
