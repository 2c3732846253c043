#!/usr/bin/env bash
# simulate.sh — work against accuracy of the runtime's mb_simulate (Dormand & Prince 5(4) with
# error control, runtime/simulate.c) and of fixed-step RK4 on the two closed-loop examples
# (docs/analysis.md "Integration with error control"): bench/simulate_driver.c integrates
# examples/five_bar.mbd for 5 s and examples/quarter_car.mbd for 2 s and for 0.5 s with their
# generated fd_loops, passive_forces, project_q and project_v, by RK4 at 11 steps (T/25 to
# T/25600) and by mb_simulate at 9 tolerances (1e-4 to 1e-12), and measures each run's final
# error against mb_simulate at 1e-13 and its fd_loops calls. The issue's target: fewer calls
# than RK4 at the same final error.
#
# Writes docs/simulate_work.png (gnuplot, docs/simulate_work.gp) and prints the markdown tables;
# with ANALYSIS_MD also writes them there, between the lines
#   <!-- simulate: bench/simulate.sh -->  and  <!-- /simulate -->  (which it must have).
#
# usage: bash bench/simulate.sh MBDC [ANALYSIS_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc and gnuplot. Takes about
#   20 s (the runtime compiled once at -O2; the runs take 2 s).
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/simulate.sh MBDC [ANALYSIS_MD]" "$@"
bench_need gcc gnuplot

for stem in five_bar quarter_car; do
  echo "== $stem: generate" >&2
  "$mbdc" generate "$root/examples/$stem.mbd" -q -o "$tmp/$stem" >&2
done
echo "== compile (gcc $bench_cflags_drv: the driver, the generated code, the runtime)" >&2
# shellcheck disable=SC2086 # the flags are words
gcc $bench_cflags_drv -I"$root/runtime" -I"$tmp/five_bar" -I"$tmp/quarter_car" \
  "$root/bench/simulate_driver.c" "$tmp"/five_bar/five_bar_{dynamics,model}.c \
  "$tmp"/quarter_car/quarter_car_{dynamics,model}.c "$root"/runtime/*.c -lm -o "$tmp/driver"
echo "== run" >&2
"$tmp/driver" >"$tmp/out.txt" || {
  cat "$tmp/out.txt" >&2
  bench_die 1 "the driver failed"
}

# the plot's data: MODEL_METHOD.dat, "calls error dt-or-tol" (runs that completed)
awk -v d="$tmp" '$1 == "run" && NF == 7 { print $5, $7, $4 > (d "/" $2 "_" $3 ".dat") }' \
  "$tmp/out.txt"
(cd "$root" && gnuplot -e "dir='$tmp'" docs/simulate_work.gp)
echo "== wrote docs/simulate_work.png" >&2

section() {
  echo "<!-- simulate: bench/simulate.sh -->"
  echo "mb_simulate at rtol = atol = tol (its calls include the starting step's and the rejected"
  echo "steps'), the final error, and RK4's calls at that error, interpolated (log-log) between"
  echo "its two runs that bracket it where its error falls 8-fold or more between them (blank"
  echo "outside: its smallest errors, on the quarter car, sit on the projection's 1e-12 floor):"
  echo
  echo "| model, T | tol | steps | fd_loops calls | final error | RK4 calls at that error |" \
    "RK4 ÷ DP5(4) |"
  echo "|---|---|---|---|---|---|---|"
  awk '
    NR == FNR { if ($1 == "ratio") r[$2, $3] = $6 " | " $7; next }
    $1 == "run" && $3 == "dp5" {
      m = $2 == "five_bar" ? "five-bar, 5 s" : $2 == "quarter_car" ? "quarter car, 2 s" : \
          "quarter car, 0.5 s"
      if (NF < 7) { printf "| %s | %s | failed | | | | |\n", m, $4; next }
      x = ($2, $4) in r ? r[$2, $4] : " | "
      printf "| %s | %s | %s | %s | %s | %s |\n", m, $4, $6, $5, $7, x
    }' "$tmp/out.txt" "$tmp/out.txt"
  echo
  echo "Fixed-step RK4 (N steps of T/N, 4 N calls; the projection after every step):"
  echo
  echo "| N | calls | five-bar: dt (ms), error | quarter car, 2 s: dt (ms), error |" \
    "quarter car, 0.5 s: dt (ms), error |"
  echo "|---|---|---|---|---|"
  awk '
    $1 == "run" && $3 == "rk4" {
      if (!($6 in seen)) { seen[$6] = 1; order[++n] = $6; calls[$6] = $5 }
      c[$2, $6] = sprintf("%.4g, %s", $4 * 1000, NF == 7 ? $7 : "failed")
    }
    END {
      for (i = 1; i <= n; i++) {
        k = order[i]
        printf "| %s | %s | %s | %s | %s |\n", k, calls[k], c["five_bar", k], \
          c["quarter_car", k], c["quarter_car_0.5s", k]
      }
    }' "$tmp/out.txt"
  echo
  echo "The references (mb_simulate at 1e-13) against RK4 at T/2^17:"
  awk '$1 == "ref" { printf "%s%s %s", n++ ? ", " : "", $2, $3 } END { print "." }' "$tmp/out.txt"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bash bench/simulate.sh $mbdc${md:+ $md}\` |"
  echo "| date | $(date -u +%Y-%m-%d) |"
  echo "| compiler | $(gcc --version | head -1), \`$bench_cflags_drv\` |"
  echo "<!-- /simulate -->"
}
section >"$tmp/section.md"
cat "$tmp/section.md"
[ -z "$md" ] || bench_md_write "$md" "$tmp/section.md" existing
