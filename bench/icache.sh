#!/usr/bin/env bash
# Code size against the L1 instruction cache: the generated rnea, crba and aba of robots whose
# code is from a few KiB to half a MiB (the Panda, the two humanoids, random trees of 35, 70 and
# 140 bodies from bench/random_tree.sh), compiled at the flags of bench/peers.sh (gcc -O3
# -march=x86-64-v3 -ffp-contract=fast). Per function:
#   - its code size (nm -S; a function cut into parts counts its parts);
#   - instructions and L1 instruction-cache misses per call, counted by callgrind simulating a
#     32 KiB, 8-way, 64-byte-line L1i (LRU, no prefetch: the misses a core must hide or pay);
#   - its time per call against the runtime's (mb_rnea, mb_crba, mb_aba on the same model's
#     tables: the compact form, one loop over the bodies whatever the robot; runtime/ compiled
#     here at the same flags), timed by bench/peers_driver.c (-DTIMING -DWITH_RUNTIME), the
#     robots one after the other in 3 rounds, each pinned to each processor, each figure its
#     best (bench_best_times, bench/driver.sh);
#   - instructions per ns, against the Panda's same function (whose code fits the L1i).
# Printed as the markdown section "Code size and the instruction cache"; with BENCHMARKS_MD also
# written there, between the lines
#   <!-- icache: bench/icache.sh -->  and  <!-- /icache -->   (appended when absent).
#
# usage: bash bench/icache.sh MBDC [BENCHMARKS_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc, ar, valgrind and
#   callgrind_annotate; about 10 minutes (the 140-body tree's aba is half a MiB of code, a minute
#   to compile).
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/icache.sh MBDC [BENCHMARKS_MD]" "$@"
bench_need gcc ar valgrind callgrind_annotate
states=$bench_states
rounds=3
cflags_gen=$bench_cflags_gen

# the runtime at the generated code's flags (C11, as its build compiles it)
echo "== the runtime" >&2
mkdir -p "$tmp/rt"
for c in "$root"/runtime/*.c; do
  # shellcheck disable=SC2086 # the flags are words
  gcc ${cflags_gen/-std=c99/-std=c11} -c "$c" -o "$tmp/rt/$(basename "${c%.c}").o"
done
lib=$tmp/libmbrt.a
ar rcs "$lib" "$tmp"/rt/*.o

for n in 35 70 140; do bash "$root/bench/random_tree.sh" "$n" 1 >"$tmp/tree$n.mbd"; done
robots="panda $(bench_panda_fixed "$tmp") -
simple_humanoid $root/examples/urdf/simple_humanoid.urdf --floating-base
romeo_small $root/examples/urdf/romeo_small.urdf --floating-base
tree35 $tmp/tree35.mbd -
tree70 $tmp/tree70.mbd -
tree140 $tmp/tree140.mbd -"

# "size ROBOT FUNC BYTES", "instr ROBOT FUNC N", "miss ROBOT FUNC N", "nv ROBOT NV" lines
: >"$tmp/counts.txt"
while read -r robot model flags; do
  d=$tmp/$robot
  echo "== $robot: generate, compile, callgrind" >&2
  p=$(bench_generate "$d/gen" "$model" "$flags" --functions rnea,crba,aba)
  pu=$(echo "$p" | tr '[:lower:]' '[:upper:]')
  # shellcheck disable=SC2086 # the flags are words
  gcc $bench_cflags_drv -I"$root/runtime" -c "$d/gen/${p}_model.c" -o "$d/model.o"
  # the counter (each function once per state) and the timer (with the runtime's functions)
  bench_driver "$d/gen" "$d/driver"
  bench_driver "$d/gen" "$d/timer" -I"$root/runtime" -DMODEL_HEADER="\"$d/gen/${p}_model.h\"" \
    -DTIMING -DWITH_RUNTIME "$d/model.o" "$lib"
  nv=$(awk -v m="${pu}_NV" '$1 == "#define" && $2 == m { print $3 }' "$d/gen/${p}_dynamics.h")
  echo "nv $robot $nv" >>"$tmp/counts.txt"
  # a function's code: its symbol and, when cut into parts, its static P_f_part<k> (the ones gcc
  # did not inline), with gcc's clones' suffixes (.constprop.0, .isra.0, .cold)
  nm -S "$d/dyn.o" | awk -v r="$robot" -v p="$p" '
    ($3 == "T" || $3 == "t") && NF == 4 {
      f = $4
      if (substr(f, 1, length(p) + 1) != p "_") next
      f = substr(f, length(p) + 2)
      sub(/\..*$/, "", f)
      sub(/_part[0-9]+$/, "", f)
      if (f != "rnea" && f != "crba" && f != "aba") next
      n = 0; h = tolower($2)
      for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
      size[f] += n
    }
    END { for (f in size) print "size", r, f, size[f] }' >>"$tmp/counts.txt"
  bench_callgrind_driver "$d" --cache-sim=yes --I1=32768,8,64
  for f in rnea crba aba; do
    nm=$(bench_per_call "$d" "$f")
    read -r n m <<<"$nm"
    printf 'instr %s %s %s\nmiss %s %s %s\n' "$robot" "$f" "$n" "$robot" "$f" "$m" \
      >>"$tmp/counts.txt"
  done
done <<<"$robots"

# shellcheck disable=SC2046 # the robots' names are words
bench_best_times "$rounds" "$tmp" $(awk '{ print $1 }' <<<"$robots") >"$tmp/times.txt"

table() {
  echo "| robot | nv | function | code KiB | instructions | L1i misses (simulated) | ns, generated | ns, runtime | runtime ÷ generated | instructions per ns | slowdown per instruction against the Panda |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  awk '
    FNR == 1 { file++ }
    file == 1 && $1 == "nv" { nv[$2] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++nr] = $2 } }
    file == 1 && $1 == "size" { size[$2, $3] = $4 }
    file == 1 && $1 == "instr" { ins[$2, $3] = $4 }
    file == 1 && $1 == "miss" { miss[$2, $3] = $4 }
    file == 2 && $1 == "time" { tm[$2, $3] = $4 }
    END {
      split("rnea crba aba", fs, " ")
      for (i = 1; i <= nr; i++)
        for (j = 1; j <= 3; j++) {
          r = order[i]; f = fs[j]; g[r, f] = tm[r, f]; rt[r, f] = tm[r, "rt_" f]
          ipns = ins[r, f] / g[r, f]; ref = ins["panda", f] / g["panda", f]
          printf "| %s | %s | %s | %.1f | %s | %s | %.1f | %.1f | %.1f | %.1f | %.2f |\n", r, nv[r], f,
            size[r, f] / 1024, ins[r, f], miss[r, f], g[r, f], rt[r, f], rt[r, f] / g[r, f], ipns,
            ref / ipns
        }
    }' "$tmp/counts.txt" "$tmp/times.txt"
}

open="<!-- icache: bench/icache.sh -->"
close="<!-- /icache -->"
section() {
  echo "$open"
  echo "## Code size and the instruction cache"
  echo
  echo "Fully unrolled code grows with the robot: a 140-body tree's \`aba\` is half a MiB, sixteen"
  echo "times the 32 KiB L1 instruction cache. \`bench/icache.sh\` measures what that costs against"
  echo "the compact form, the runtime's one loop over the model's tables (\`mb_rnea\`, \`mb_crba\`,"
  echo "\`mb_aba\` on the same model, compiled at the same flags), for the Panda (fingers fixed),"
  echo "the two humanoids (floating base) and random trees of 35, 70 and 140 bodies"
  echo "(\`bench/random_tree.sh N 1\`: generic axes and placements). Generated code at"
  echo "\`$cflags_gen\`; instructions and L1i misses per call counted by callgrind over $states"
  echo "states, the cache simulated as 32 KiB, 8-way, 64-byte lines, LRU without prefetching (the"
  echo "misses a core has to hide); times per call from \`bench/peers_driver.c\` (\`-DTIMING"
  echo "-DWITH_RUNTIME\`: best of 30 runs over the states, one output array for every state; the"
  echo "robots one after the other in $rounds rounds, in each once pinned to each processor, each"
  echo "figure its best run), on a shared 2-core virtual machine whose two processors run the same"
  echo "code up to 1.45 times apart, and which slows by as much at times. The functions as"
  echo "generated: those of more than 12 000 statements (the random trees' larger ones) are cut"
  echo "into static parts ([generator.md](generator.md#long-functions-parts)); their code size is"
  echo "that of the function and its parts."
  echo
  table
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bash bench/icache.sh build/generator/mbdc docs/benchmarks.md\` |"
  echo "| date | $(date +%Y-%m-%d) |"
  echo "| compiler | $(gcc --version | head -1) |"
  echo "| instructions | $(valgrind --version) --tool=callgrind --cache-sim=yes |"
  echo "$close"
}

section >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
