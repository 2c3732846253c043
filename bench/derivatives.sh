#!/usr/bin/env bash
# The derivatives of the dynamics (docs/derivatives.md) on the Panda (fingers fixed, as
# bench/peers.sh), Solo12 and romeo_small (floating bases):
#   1. operations (`mbdc stats`) and estimated code size of rnea, aba, rnea_derivatives and
#      aba_derivatives;
#   2. the compile time (wall clock, gcc -O2 -c, one run; GNU time), peak memory and object size
#      (`size`, text) of a file holding the two derivative functions alone (the target: under
#      30 s);
#   3. callgrind instructions per call, and the time per call (best of 5 rounds on every
#      processor, bench_best_times), of rnea, aba, the derivatives and central differences of
#      rnea and aba (4 nv calls of the function and 2 nv of integrate per state), at the flags of
#      bench/peers.sh (gcc -O3 -march=x86-64-v3 -ffp-contract=fast), over the 64 states of
#      bench/peers_driver.c (-DWITH_DERIVATIVES), with the ratios derivatives / function.
# Printed as markdown; with DERIV_MD also written there, between the lines
#   <!-- derivatives: bench/derivatives.sh -->  and  <!-- /derivatives -->  (appended when absent).
#
# usage: bash bench/derivatives.sh MBDC [DERIV_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc, valgrind, callgrind_annotate
#   and GNU time (/usr/bin/time). Times: run it alone on the machine.
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/derivatives.sh MBDC [DERIV_MD]" "$@"
bench_need gcc valgrind callgrind_annotate size /usr/bin/time

robots=$(bench_derivative_robots "$tmp")
cflags_gen=$bench_cflags_gen
funcs=rnea,crba,aba,integrate,rnea_derivatives,aba_derivatives
timed="rnea aba rnea_derivatives aba_derivatives fd_rnea fd_aba"

: >"$tmp/data.txt"
while read -r robot model flags; do
  d=$tmp/$robot
  mkdir -p "$d"
  gen_flags=()
  [ "$flags" = "-" ] || gen_flags=("$flags")
  echo "== $robot: stats, compile time, callgrind" >&2
  "$mbdc" stats "$model" -q "${gen_flags[@]}" --functions rnea,aba,rnea_derivatives,aba_derivatives \
    --json >"$d/stats.json"
  grep -o '"[a-z_]*": {"mul": [0-9]*, "add": [0-9]*, "div": [0-9]*, "sqrt": [0-9]*, "trig": [0-9]*, "live": [0-9]*, "live_bytes": [0-9]*, "code_bytes": [0-9]*' "$d/stats.json" |
    sed 's/[":{},]/ /g' | awk -v r="$robot" '{ print "ops", r, $1, $3 + $5 + $7 + $9 + $11, $17 }' >>"$tmp/data.txt"
  # the derivatives alone: compile time at -O2 and object size
  bench_generate "$d/only" "$model" "$flags" --functions rnea_derivatives,aba_derivatives >/dev/null
  src=$(ls "$d"/only/*_dynamics.c)
  /usr/bin/time -f "%e %M" -o "$d/time.txt" gcc -std=c99 -O2 -c "$src" -o "$d/only.o"
  echo "compile $robot $(cat "$d/time.txt") $(size "$d/only.o" | awk 'NR == 2 { print $1 }')" >>"$tmp/data.txt"
  # the benchmark
  p=$(bench_generate "$d/gen" "$model" "$flags" --functions "$funcs")
  pu=$(echo "$p" | tr '[:lower:]' '[:upper:]')
  nv=$(awk -v n="${pu}_NV" '$1 == "#define" && $2 == n { print $3 }' "$d/gen/${p}_dynamics.h")
  echo "nv $robot $nv" >>"$tmp/data.txt"
  bench_driver "$d/gen" "$d/driver" -DWITH_DERIVATIVES
  bench_callgrind_driver "$d"
  bench_driver "$d/gen" "$d/timer" -DWITH_DERIVATIVES -DTIMING
  for f in $timed; do
    n=$(bench_per_call "$d" "$f")
    echo "instr $robot $f $n" >>"$tmp/data.txt"
  done
done <<<"$robots"

# shellcheck disable=SC2046 # the robots' names are words
bench_best_times 5 "$tmp" $(awk '{ print $1 }' <<<"$robots") >>"$tmp/data.txt"

tables() {
  echo "| robot | nv | function | mul + add + div + sqrt + trig | code KiB (estimate) | instructions per call | ns per call | instructions / the function's | time / the function's |"
  echo "|---|---|---|---|---|---|---|---|---|"
  awk '
    $1 == "ops" { ops[$2, $3] = $4; code[$2, $3] = $5 }
    $1 == "nv" { nv[$2] = $3; order[++n] = $2 }
    $1 == "instr" { ins[$2, $3] = $4 }
    $1 == "time" { t[$2, $3] = $4 }
    END {
      split("rnea aba rnea_derivatives aba_derivatives fd_rnea fd_aba", fs, " ")
      base["rnea_derivatives"] = "rnea"; base["fd_rnea"] = "rnea"
      base["aba_derivatives"] = "aba"; base["fd_aba"] = "aba"
      for (i = 1; i <= n; i++) {
        r = order[i]
        for (k = 1; k <= 6; k++) {
          f = fs[k]; b = base[f]
          o = ((r, f) in ops) ? ops[r, f] : "—"
          c = ((r, f) in code) ? sprintf("%.1f", code[r, f] / 1024) : "—"
          name = f
          if (f == "fd_rnea") name = "central differences of rnea (4 nv rnea + 2 nv integrate)"
          if (f == "fd_aba") name = "central differences of aba (4 nv aba + 2 nv integrate)"
          ri = b != "" ? sprintf("%.1f", ins[r, f] / ins[r, b]) : "—"
          rt = b != "" && t[r, b] > 0 ? sprintf("%.1f", t[r, f] / t[r, b]) : "—"
          printf "| %s | %s | %s | %s | %s | %s | %.0f | %s | %s |\n", r, nv[r], name, o, c, ins[r, f], t[r, f], ri, rt
        }
      }
    }' "$tmp/data.txt"
  echo
  echo "Compile time of the two derivative functions alone (gcc $(gcc -dumpfullversion) -std=c99 -O2 -c, wall clock, one run), the compiler's peak memory and the object's text size:"
  echo
  echo "| robot | compile s | peak memory MiB | text bytes |"
  echo "|---|---|---|---|"
  awk '$1 == "compile" { printf "| %s | %s | %.0f | %s |\n", $2, $3, $4 / 1024, $5 }' "$tmp/data.txt"
}

section() {
  echo "<!-- derivatives: bench/derivatives.sh -->"
  echo "## Measured (bench/derivatives.sh, $(date +%Y-%m-%d))"
  echo
  echo "\`bash bench/derivatives.sh build/generator/mbdc docs/derivatives.md\`: instructions by callgrind"
  echo "(exact), times the best of 5 rounds on each processor of this 2-core virtual machine, gcc"
  echo "$(gcc -dumpfullversion) $cflags_gen; 64 random states. The ratios are against the same"
  echo "robot's generated rnea (for rnea_derivatives and the differences of rnea) or aba."
  echo
  tables
  echo "<!-- /derivatives -->"
}

section >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
