#!/usr/bin/env bash
# Fuzz the model readers with libFuzzer (clang; built in build-fuzz/ with -DMBDC_FUZZ=ON, which
# also turns on AddressSanitizer and UndefinedBehaviorSanitizer). docs/fuzzing.md has the numbers.
#
#   bash scripts/fuzz.sh [--time SECONDS | --runs N] [parser | urdf | mjcf | pipeline | all]
#
#   parser    fuzz/fuzz_parser.c: the model language (default)
#   urdf      fuzz/fuzz_urdf.c: the URDF reader
#   mjcf      fuzz/fuzz_mjcf.c: the MJCF (MuJoCo) reader
#   pipeline  fuzz/fuzz_pipeline.c: check and generate (either reader, every recipe, the render
#             templates), into memory
#   all       the four, one after the other
#   --time  stop each target after SECONDS (default 60); --runs: after N inputs
#   a bare number is --time (the old form, `fuzz.sh 30`); FUZZ_TARGET=fuzz_urdf picks urdf
#
# Seeds: the examples, the golden bad inputs (tests/golden/, tests/golden_urdf/, tests/golden_mjcf/),
# fuzz/seeds/ and the regression inputs (tests/fuzz-regressions/); dictionaries fuzz/mbd.dict,
# fuzz/urdf.dict, fuzz/mjcf.dict. The
# corpus a run grows is kept in build-fuzz/fuzz-work/TARGET/corpus for the next run (FUZZ_FRESH=1
# starts from the seeds). An input that crashes, leaks, hangs or trips a sanitizer is copied into
# tests/fuzz-regressions/ with the target's extension (test_fuzz_regressions replays it from then
# on) and the script fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=time
amount=60
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
  --time) mode=time amount=${2:?--time needs SECONDS}; shift 2 ;;
  --runs) mode=runs amount=${2:?--runs needs N}; shift 2 ;;
  parser | urdf | mjcf | pipeline) targets+=("$1"); shift ;;
  all) targets+=(parser urdf mjcf pipeline); shift ;;
  [0-9]*) mode=time amount=$1; shift ;;
  *) echo "usage: fuzz.sh [--time SECONDS | --runs N] [parser | urdf | mjcf | pipeline | all]" >&2; exit 2 ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  if [ "${FUZZ_TARGET:-fuzz_parser}" = fuzz_urdf ]; then targets=(urdf); else targets=(parser); fi
fi
if ! command -v clang >/dev/null; then
  echo "fuzz: clang is not installed (run scripts/setup.sh); skipped"
  exit 0
fi
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBDC_FUZZ=ON \
  -DMBDC_TESTS=OFF -DMBDC_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null

failed=0
for t in "${targets[@]}"; do
  work=build-fuzz/fuzz-work/$t
  [ "${FUZZ_FRESH:-0}" = 1 ] && rm -rf "$work"
  rm -rf "$work/artifacts" "$work/seeds"
  mkdir -p "$work/corpus" "$work/artifacts" "$work/seeds"
  if [ "$t" = urdf ]; then
    ext=urdf dict=fuzz/urdf.dict max_len=16384
    cp examples/urdf/*.urdf tests/golden_urdf/*.urdf fuzz/seeds/*.urdf "$work/seeds/"
  elif [ "$t" = mjcf ]; then
    ext=xml dict=fuzz/mjcf.dict max_len=16384
    cp examples/mjcf/*/*.xml tests/golden_mjcf/*.xml "$work/seeds/"
  elif [ "$t" = pipeline ]; then
    # valid models first: the examples, the degenerate ones of tests/singular/, small URDFs
    ext=mbd dict=fuzz/mbd.dict max_len=4096
    cp examples/*.mbd tests/singular/*.mbd fuzz/seeds/*.urdf "$work/seeds/"
    cp tests/coupled/*.mbd "$work/seeds/"
    cp examples/urdf/double_pendulum.urdf examples/urdf/ur5.urdf "$work/seeds/"
  else
    ext=mbd dict=fuzz/mbd.dict max_len=4096
    cp examples/*.mbd tests/golden/*.mbd tests/coupled/*.mbd "$work/seeds/"
  fi
  cp tests/fuzz-regressions/*."$ext" "$work/seeds/" 2>/dev/null || true
  if [ "$mode" = runs ]; then limit=(-runs="$amount"); else limit=(-max_total_time="$amount"); fi
  start=$(date +%s)
  status=0
  ./build-fuzz/fuzz/fuzz_"$t" "$work/corpus" "$work/seeds" -dict="$dict" "${limit[@]}" \
    -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" >"$work/log.txt" 2>&1 || status=$?
  seconds=$(($(date +%s) - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt" | tail -n 1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log.txt" | tail -n 1)
  found=$(find "$work/artifacts" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    mkdir -p tests/fuzz-regressions
    for a in "$work"/artifacts/*; do
      [ -f "$a" ] && cp "$a" "tests/fuzz-regressions/$t-$(basename "$a").$ext"
    done
    echo "fuzz_$t: FAILED (status $status) after ${runs:-?} runs in $seconds s; inputs copied" \
      "into tests/fuzz-regressions/, log in $work/log.txt"
    tail -n 40 "$work/log.txt"
    failed=1
  else
    echo "fuzz_$t: ${runs:-?} runs in $seconds s, no crash, peak RSS ${rss:-?} MB," \
      "corpus $(find "$work/corpus" -type f | wc -l) inputs"
  fi
done
exit "$failed"
