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
build=${1:?usage: bench/callgrind.sh BUILD_DIR [CALLS]}
calls=${2:-128}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while read -r robot _; do
  [ -n "$robot" ] || continue
  if ! valgrind --tool=callgrind --callgrind-out-file="$tmp/$robot.out" \
      "$build/bench/bench_$robot" --callgrind "$calls" >"$tmp/$robot.log" 2>"$tmp/$robot.err"; then
    echo "callgrind.sh: bench_$robot failed:" >&2
    cat "$tmp/$robot.log" "$tmp/$robot.err" >&2
    exit 1
  fi
  for ((k = 1; ; k++)); do
    f="$tmp/$robot.out.$k"
    [ -f "$f" ] || break
    awk -v robot="$robot" -v calls="$calls" '
      /^desc: Trigger: Client Request: / { sub(/^desc: Trigger: Client Request: /, ""); name = $0 }
      /^summary:/ { instr = $2 }
      END { if (name != "") { split(name, p, " "); printf "instr %s %s %s %.0f\n", robot, p[1], p[2], instr / calls } }' "$f"
  done
done <"$build/bench/robots.txt"
