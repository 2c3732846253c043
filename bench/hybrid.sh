#!/usr/bin/env bash
# Hybrid dynamics' cost (docs/analysis.md): callgrind instructions per call (exact) of the
# generated hybrid (the mask read at run time) under four masks — every dof free (aba's answer),
# every dof prescribed (rnea's), every joint but the first prescribed (on a floating robot: its
# base free, the joints prescribed), every other joint prescribed (the second, fourth, ...) — and
# of hybrid_fixed, the same three patterns folded in at generation (--prescribed), against the
# same model's aba and rnea, at the flags of bench/peers.sh (gcc -O3 -march=x86-64-v3
# -ffp-contract=fast) over the 64 states of bench/peers_driver.c (-DWITH_HYBRID: hybrid with every
# dof free checked against aba and with every dof prescribed against rnea, -DWITH_HYBRID_FIXED:
# hybrid_fixed against hybrid under its pattern, each to 1e-9 relative). The issue's bound: aba's
# instructions plus the prescribed dofs' share, taken here as rnea's instructions times the
# fraction of the dofs prescribed.
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

# joints ROBOT MODEL FLAGS: "NAME IV NV" of every moving joint in tree order (mbdc check)
joints() {
  local args=("$2")
  [ "$3" = "-" ] || args+=("$3")
  "$mbdc" check "${args[@]}" 2>/dev/null | awk '
    /^moving joints, in tree order/ { on = 1; getline; next }
    on && NF == 0 { on = 0 }
    on { print $2, $(NF - 1), $NF }'
}

# pattern P NV < JOINTS: "LIST MASK" for pattern P (all, base, alt): the joints prescribed and the
# nv flags as a C initializer
pattern() {
  awk -v p="$1" -v nv="$2" '
    { k++; on = p == "all" || (p == "base" && k > 1) || (p == "alt" && k % 2 == 0)
      if (on) { list = list (list ? "," : "") $1; for (d = 0; d < $3; d++) m[$2 + d] = 1 } }
    END {
      s = "{"
      for (d = 0; d < nv; d++) s = s (d ? "," : "") (m[d] ? 1 : 0)
      print list, s "}"
    }'
}

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
  joints "$robot" "$model" "$flags" >"$d/joints.txt"
  for x in all base alt; do
    read -r list mask < <(pattern "$x" "$nv" <"$d/joints.txt")
    e=$d/fixed_$x
    echo "count $robot $x $(tr -cd 1 <<<"$mask" | wc -c)" >>"$tmp/data.txt"
    bench_generate "$e/gen" "$model" "$flags" --functions "rnea,crba,aba,hybrid,hybrid_fixed" \
      --prescribed "$list" >/dev/null
    bench_driver "$e/gen" "$e/driver" -DWITH_HYBRID -DWITH_HYBRID_FIXED -DFIXED_MASK="$mask"
    bench_callgrind_driver "$e"
    err=$(awk '$1 == "hybrid_fixed" && $2 == "error" { print $3 }' "$e/driver.txt")
    awk -v e="$err" 'BEGIN { exit !(e != "" && e + 0 <= 1e-9) }' ||
      bench_die 1 "$robot: hybrid_fixed ($x) differs from hybrid by ${err:-?} (relative)"
    echo "instr $robot fixed_$x $(bench_per_call "$e" hybrid_fixed_fn)" >>"$tmp/data.txt"
  done
  echo "nv $robot $nv" >>"$tmp/data.txt"
  echo "robot $robot" >>"$tmp/data.txt"
done <<<"$robots"

table() {
  printf "%s" "| robot | nv | rnea | aba | mask | prescribed | hybrid (run-time mask) | ÷ aba "
  echo "| hybrid_fixed | ÷ aba | bound: aba + share of rnea | hybrid_fixed within |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk '
    $1 == "instr" { ins[$2, $3] = $4 }
    $1 == "nv" { nv[$2] = $3 }
    $1 == "robot" { order[++n] = $2 }
    END {
      split("free all base alt", ms, " ")
      for (i = 1; i <= n; i++) {
        r = order[i]; N = nv[r]
        for (k = 1; k <= 4; k++) {
          m = ms[k]; h = ins[r, "hybrid_" m]; x = m == "free" ? ins[r, "aba"] : ins[r, "fixed_" m]
          p = prescribed(r, m, N)
          bound = ins[r, "aba"] + ins[r, "rnea"] * p / N
          fx = m == "free" ? "— (aba itself)" : x
          fr = m == "free" ? "—" : sprintf("%.2f", x / ins[r, "aba"])
          fw = m == "free" ? "—" : x <= bound ? "yes" : "no"
          printf "| %s | %d | %d | %d | %s | %d | %d | %.2f | %s | %s | %.0f | %s |\n", r, N,
            ins[r, "rnea"], ins[r, "aba"], m, p, h, h / ins[r, "aba"], fx, fr, bound, fw
        }
      }
    }
    function prescribed(r, m, N) { return m == "free" ? 0 : pcount[r, m] }
    $1 == "count" { pcount[$2, $3] = $4 }' "$tmp/data.txt"
}

section() {
  echo "<!-- hybrid: bench/hybrid.sh -->"
  table
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bash bench/hybrid.sh $mbdc${md:+ $md}\` |"
  echo "| date | $(date -u +%Y-%m-%d) |"
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1')
  echo "| CPU | $cpu, $(nproc) cores ($(uname -sr)) |"
  echo "| compiler | $(gcc --version | head -1) |"
  echo "| instructions | $(valgrind --version) --tool=callgrind |"
  echo "<!-- /hybrid -->"
}

section >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
