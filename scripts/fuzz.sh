#!/usr/bin/env bash
# Fuzz the model parser with libFuzzer for a bounded time: bash scripts/fuzz.sh [SECONDS].
# FUZZ_TARGET=fuzz_urdf fuzzes the URDF reader instead (seeds: the example robots and the golden
# bad URDFs). Seeds: the examples and the golden malformed models. A crash found is copied into
# tests/fuzz-regressions/ (replayed by the test suite from then on) and the script fails.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
target=${FUZZ_TARGET:-fuzz_parser}
if ! command -v clang >/dev/null; then
  echo "fuzz: clang is not installed (run scripts/setup.sh); skipped"
  exit 0
fi
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBDC_FUZZ=ON \
  -DMBDC_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "$target" >/dev/null
work=build-fuzz/fuzz-work
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
if [ "$target" = fuzz_urdf ]; then
  cp examples/urdf/*.urdf tests/golden_urdf/*.urdf "$work/corpus/"
else
  cp examples/*.mbd "$work/corpus/"
  cp tests/golden/*.mbd "$work/corpus/" 2>/dev/null || true
fi
cp tests/fuzz-regressions/* "$work/corpus/" 2>/dev/null || true
status=0
dict=()
[ "$target" = fuzz_parser ] && dict=(-dict=fuzz/mbd.dict)
./build-fuzz/fuzz/"$target" "$work/corpus" "${dict[@]}" -max_total_time="$seconds" \
  -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" >"$work/log.txt" 2>&1 || status=$?
tail -n 12 "$work/log.txt" | grep -E 'stat::number_of_executed_units|stat::peak_rss|Done' || true
found=$(ls "$work/artifacts" | wc -l)
if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
  mkdir -p tests/fuzz-regressions
  cp "$work"/artifacts/* tests/fuzz-regressions/ 2>/dev/null || true
  echo "fuzz: FAILED (status $status); inputs kept in tests/fuzz-regressions/, log in $work/log.txt"
  tail -n 40 "$work/log.txt"
  exit 1
fi
echo "fuzz: no crash in $seconds s"
