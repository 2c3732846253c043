#!/usr/bin/env bash
# The whole test suite: set up, then build and run every test in a normal build, build the tool
# and the runtime in Release, fuzz both readers
# (the model language and URDF) for a bounded time each, and run every test again in two sanitizer
# builds (-fsanitize=address,undefined), one with gcc and one with clang: their UBSan catch
# different things (clang's checks pointer arithmetic on a null pointer, gcc's does not). The
# fuzzers' regression inputs are replayed by ctest (test_fuzz_regressions) in every build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)

echo "== normal build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

# -O3 warns of what -O2 does not see (an allocation size it cannot bound): the tool and the
# runtime are built (under -Werror) as a project building mbdc in Release would
echo "== release build of mbdc and the runtime (-O3)"
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release -j"$jobs" --target mbdc mbrt

echo "== fuzzing each target (model language, URDF, whole pipeline) for ${MBDC_FUZZ_SECONDS:-20} s"
bash scripts/fuzz.sh --time "${MBDC_FUZZ_SECONDS:-20}" all

# sanitize DIR [CMAKE OPTION...]: a Debug build with -fsanitize=address,undefined, every test run
sanitize() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DMBDC_SANITIZE=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs")
}

echo "== sanitizer build, gcc (address, undefined)"
sanitize build-asan

# The benchmarks' smoke runs are left to the gcc build above; every unit and CLI test runs.
echo "== sanitizer build, clang (address, undefined)"
CC=clang sanitize build-asan-clang -DMBDC_BENCH=OFF
