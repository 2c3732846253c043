#!/usr/bin/env bash
# Instructions per call of every benchmarked function, counted by valgrind --tool=callgrind:
# exact and repeatable on a noisy machine, where times are not.
#
# usage: bench/callgrind.sh BUILD_DIR [CALLS]     (BUILD_DIR configured with MBDC_BENCH=ON)
#
# Each bench_<robot> runs in --callgrind mode: after a warm-up, CALLS calls of every (function,
# implementation), each between CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT("FUNC IMPL"), so
# one dump holds exactly those calls (plus ~10 instructions per call of the benchmark's loop and
# pointer call, the same for every implementation). Prints one line per dump:
#   instr ROBOT FUNC IMPL INSTRUCTIONS_PER_CALL
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_start "usage: bench/callgrind.sh BUILD_DIR [CALLS]" 1 2 "$@"
build=$1
calls=${2:-128}
bench_need valgrind
while read -r robot _; do
  [ -n "$robot" ] || continue
  bench_callgrind_dumps "$tmp/$robot.log" "$calls" "$build/bench/bench_$robot" "$robot"
done <"$build/bench/robots.txt"
