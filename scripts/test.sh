#!/usr/bin/env bash
# The test suites (docs/testing.md has what each covers and how long it takes).
#
#   bash scripts/test.sh          the quick suite: one build (build-quick/: gcc, Debug, ASan and
#                                 UBSan with float-cast-overflow) of the tool, the runtime, every
#                                 unit, CLI, runtime and consumer test and the quick rows of the
#                                 generated-code matrix (tests/matrix.txt), all run; then a short
#                                 fuzz of each reader (model language, URDF, whole pipeline)
#   bash scripts/test.sh --full   the quick suite, then (CI runs this) every row of the matrix
#                                 and every test in a normal build (build/: RelWithDebInfo, the
#                                 code users get), the tool and the runtime in Release (-O3 warns
#                                 of what -O2 does not see), a longer fuzz, and the quick set
#                                 again under clang's sanitizers (its UBSan checks pointer
#                                 arithmetic on a null pointer, gcc's does not)
#
# MBDC_FUZZ_SECONDS sets the fuzz time per target (default 10 quick, 20 full). Each stage prints
# its wall-clock time; a failing stage stops the script with ctest's report.
set -euo pipefail
cd "$(dirname "$0")/.."
full=0
case "${1:-}" in
"") ;;
--full) full=1 ;;
*) echo "usage: scripts/test.sh [--full]" >&2; exit 2 ;;
esac
bash scripts/setup.sh
jobs=$(nproc)
start=$SECONDS
stage_start=$SECONDS
stage() {
  if [ -n "${stage_name:-}" ]; then
    echo "== $stage_name: $((SECONDS - stage_start)) s"
  fi
  stage_name=$1
  stage_start=$SECONDS
  [ -z "$1" ] || echo "== $1"
}

# run DIR [CTEST OPTION...]: every test of the build DIR (under the sanitizers' options: leaks are
# errors, reports carry a stack trace).
run() {
  local dir=$1
  shift
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs" "$@")
}

# sanitize DIR SET [CMAKE OPTION...]: a Debug build with the sanitizers (MBDC_SANITIZE) of the
# test set SET (quick or full), built and every test run
sanitize() {
  local dir=$1 set=$2
  shift 2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DMBDC_SANITIZE=ON -DMBDC_TEST_SET="$set" \
    -DMBDC_BENCH=OFF "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  run "$dir"
}

stage "quick: sanitizer build, gcc (address, undefined), the quick set"
sanitize build-quick quick
stage "quick: fuzzing each target (model language, URDF, whole pipeline)"
bash scripts/fuzz.sh --time "${MBDC_FUZZ_SECONDS:-$((full ? 20 : 10))}" all

if [ "$full" = 1 ]; then
  stage "full: normal build (RelWithDebInfo), every test"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBDC_TEST_SET=full >/dev/null
  cmake --build build -j"$jobs"
  run build
  stage "full: release build of mbdc and the runtime (-O3)"
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-release -j"$jobs" --target mbdc mbrt
  stage "full: sanitizer build, clang (address, undefined), the quick set"
  CC=clang sanitize build-asan-clang quick
fi
stage ""
echo "== $( [ "$full" = 1 ] && echo full || echo quick ) suite passed in $((SECONDS - start)) s"
