#!/usr/bin/env bash
# Long functions cut into parts (--parts, docs/generator.md "Long functions"): on romeo_small
# (37 dofs, floating base), the functions of more than 12 000 statements — rnea_derivatives,
# aba_derivatives, minv — generated whole (--parts 0) and cut (the default, --parts 4000):
#   1. the compile time (wall clock, gcc -O2 -c, one run; GNU time), the compiler's peak memory
#      and the object's text size of a file holding the derivatives, and of one holding minv;
#   2. callgrind instructions per call of rnea_derivatives and aba_derivatives over the 64 states
#      of bench/peers_driver.c (-DWITH_DERIVATIVES), at the flags of bench/peers.sh (gcc -O3
#      -march=x86-64-v3 -ffp-contract=fast).
# Printed as markdown; with GENERATOR_MD also written there, between the lines
#   <!-- parts: bench/parts.sh -->  and  <!-- /parts -->  (appended when absent).
#
# usage: bash bench/parts.sh MBDC [GENERATOR_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc, valgrind, callgrind_annotate
#   and GNU time (/usr/bin/time). About 12 minutes; compile times: run it alone on the machine.
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/parts.sh MBDC [GENERATOR_MD]" "$@"
bench_need gcc valgrind callgrind_annotate size /usr/bin/time

model=$root/examples/urdf/romeo_small.urdf
: >"$tmp/data.txt"
for variant in whole parts; do
  flags=(--parts 0)
  [ "$variant" = whole ] || flags=(--parts 4000)
  for set in derivatives minv; do
    fns=rnea_derivatives,aba_derivatives
    [ "$set" = derivatives ] || fns=minv
    d=$tmp/$variant/$set
    mkdir -p "$d"
    echo "== $variant: $set: generate, compile at -O2" >&2
    "$mbdc" generate "$model" -q --floating-base "${flags[@]}" --functions "$fns" -o "$d"
    src=$(ls "$d"/*_dynamics.c)
    nparts=$(grep -c '^static void .*_part[0-9]*(' "$src" || true)
    /usr/bin/time -f "%e %M" -o "$d/time.txt" gcc -std=c99 -O2 -c "$src" -o "$d/o.o"
    echo "compile $variant $set $nparts $(cat "$d/time.txt") $(size "$d/o.o" | awk 'NR == 2 { print $1 }')" >>"$tmp/data.txt"
  done
  d=$tmp/$variant/bench
  echo "== $variant: callgrind" >&2
  bench_generate "$d" "$model" --floating-base "${flags[@]}" \
    --functions rnea,crba,aba,integrate,rnea_derivatives,aba_derivatives >/dev/null
  bench_driver "$d" "$d/driver" -DWITH_DERIVATIVES
  bench_callgrind_driver "$d"
  for f in rnea_derivatives aba_derivatives; do
    n=$(bench_per_call "$d" "$f")
    echo "instr $variant $f $n" >>"$tmp/data.txt"
  done
done

section() {
  echo "<!-- parts: bench/parts.sh -->"
  echo "#### Measured (bench/parts.sh, $(date +%Y-%m-%d))"
  echo
  echo "\`bash bench/parts.sh build/generator/mbdc docs/generator.md\`: romeo_small (37 dofs), each"
  echo "function whole (\`--parts 0\`) and cut (the default, \`--parts 4000\`). Compile time: gcc"
  echo "$(gcc -dumpfullversion) -std=c99 -O2 -c, wall clock, one run; instructions: callgrind, per call over"
  echo "64 random states, $bench_cflags_gen."
  echo
  echo "| file | form | parts | compile s | peak memory MiB | text bytes |"
  echo "|---|---|---|---|---|---|"
  awk '$1 == "compile" {
         what = $3 == "derivatives" ? "rnea_derivatives + aba_derivatives" : "minv"
         printf "| %s | %s | %s | %s | %.0f | %s |\n", what, $2, $4 == 0 ? "—" : $4, $5, $6 / 1024, $7
       }' "$tmp/data.txt"
  echo
  echo "| function | instructions per call, whole | cut | cut / whole |"
  echo "|---|---|---|---|"
  awk '$1 == "instr" { n[$2, $3] = $4 }
       END { split("rnea_derivatives aba_derivatives", fs, " ")
             for (k = 1; k <= 2; k++) { f = fs[k]
               printf "| %s | %s | %s | %.3f |\n", f, n["whole", f], n["parts", f], n["parts", f] / n["whole", f] } }' "$tmp/data.txt"
  echo "<!-- /parts -->"
}

section >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
