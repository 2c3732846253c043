#!/usr/bin/env bash
# Hybrid dynamics' cost (mbdc generate --functions hybrid; docs/analysis.md): callgrind
# instructions per call (exact) of the generated hybrid under four run-time masks — every dof
# free (aba's answer), every dof prescribed (rnea's), a floating base's 6 dofs free and its
# joints prescribed (or, on a fixed base, the first 6 dofs free), every other dof prescribed —
# against the same model's aba and rnea, at the flags of bench/peers.sh (gcc -O3
# -march=x86-64-v3 -ffp-contract=fast) over the 64 states of bench/peers_driver.c
# (-DWITH_HYBRID: hybrid's qdd with every dof free checked against aba's and its tau with every
# dof prescribed against rnea's, to 1e-9 relative). The issue's bound: hybrid at most aba's
# instructions plus the prescribed dofs' share, taken here as rnea's instructions times the
# fraction of dofs prescribed.
# Printed as markdown; with COST_MD also written there, between the lines
#   <!-- hybrid: bench/hybrid.sh -->  and  <!-- /hybrid -->  (appended when absent).
#
# usage: bash bench/hybrid.sh MBDC [COST_MD]
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/hybrid.sh MBDC [COST_MD]" "$@"
bench_need gcc valgrind callgrind_annotate
masks="free all base alt"

robots="panda $(bench_panda_fixed "$tmp") -
ur5 $root/examples/urdf/ur5.urdf -
solo12 $root/examples/urdf/solo12.urdf --floating-base
anymal_b $root/examples/urdf/anymal_b.urdf --floating-base"

: >"$tmp/data.txt"
while read -r robot model flags; do
  d=$tmp/$robot
  echo "== $robot: generate, compile, callgrind" >&2
  p=$(bench_generate "$d/gen" "$model" "$flags" --functions "rnea,crba,aba,hybrid")
  pu=$(echo "$p" | tr '[:lower:]' '[:upper:]')
  nv=$(awk -v n="${pu}_NV" '$1 == "#define" && $2 == n { print $3 }' "$d/gen/${p}_dynamics.h")
  bench_driver "$d/gen" "$d/driver" -DWITH_HYBRID
  bench_callgrind_driver "$d"
  echo "   $(tr '\n' ' ' <"$d/driver.txt")" >&2
  err=$(awk '$1 == "hybrid" && $2 == "error" { print $3 }' "$d/driver.txt")
  awk -v e="$err" 'BEGIN { exit !(e != "" && e + 0 <= 1e-9) }' ||
    bench_die 1 "$robot: hybrid differs from aba or rnea by ${err:-?} (relative)"
  for f in rnea aba; do echo "instr $robot $f $(bench_per_call "$d" "$f")" >>"$tmp/data.txt"; done
  for x in $masks; do
    echo "instr $robot hybrid_$x $(bench_per_call "$d" "hybrid_$x")" >>"$tmp/data.txt"
  done
  echo "nv $robot $nv" >>"$tmp/data.txt"
  echo "robot $robot" >>"$tmp/data.txt"
done <<<"$robots"

table() {
  echo "| robot | nv | rnea | aba | mask | prescribed | hybrid | ÷ aba | bound: aba + share of rnea | within |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  awk '
    $1 == "instr" { ins[$2, $3] = $4 }
    $1 == "nv" { nv[$2] = $3 }
    $1 == "robot" { order[++n] = $2 }
    END {
      split("free all base alt", ms, " ")
      for (i = 1; i <= n; i++) {
        r = order[i]; N = nv[r]
        for (k = 1; k <= 4; k++) {
          m = ms[k]
          p = m == "free" ? 0 : m == "all" ? N : m == "base" ? (N > 6 ? N - 6 : 0) : int(N / 2)
          h = ins[r, "hybrid_" m]; bound = ins[r, "aba"] + ins[r, "rnea"] * p / N
          printf "| %s | %d | %d | %d | %s | %d | %d | %.2f | %.0f | %s |\n", r, N, ins[r, "rnea"],
            ins[r, "aba"], m, p, h, h / ins[r, "aba"], bound, h <= bound ? "yes" : "no"
        }
      }
    }' "$tmp/data.txt"
}

section() {
  echo "<!-- hybrid: bench/hybrid.sh -->"
  table
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bash bench/hybrid.sh $mbdc${md:+ $md}\` |"
  echo "| date | $(date -u +%Y-%m-%d) |"
  echo "| CPU | $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1'), $(nproc) cores ($(uname -sr)) |"
  echo "| compiler | $(gcc --version | head -1) |"
  echo "| instructions | $(valgrind --version) --tool=callgrind |"
  echo "<!-- /hybrid -->"
}

section >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
