#!/usr/bin/env bash
# Flexible bodies: times, instruction counts and arithmetic of bench_flex_<model> (bench/bench_flex.c:
# the generated aba and crba_fd against the runtime's mb_aba and mb_crba_fd, on the flexible
# examples and on chains of bench/flex_chain.sh), written as
#   - the section "Flexible bodies" of docs/benchmarks.md, between the lines
#       <!-- flexible: bench/flex.sh -->  and  <!-- /flexible -->   (appended when absent; bench/
#     report.sh keeps it when it rewrites the rest of the file, scripts/bench.sh reruns this after);
#   - the tables of docs/flexible.md "Benchmark", between the lines
#       <!-- flex-bench: bench/flex.sh -->  and  <!-- /flex-bench -->   (when present).
#
# usage: bash bench/flex.sh BUILD_DIR [BENCHMARKS_MD [FLEXIBLE_MD]]
#   BUILD_DIR configured with MBDC_BENCH=ON (bench/bench_flex_* built); defaults docs/benchmarks.md
#   and docs/flexible.md.
# Environment: MBDC_BENCH_ARGS (passed to every bench_flex_<model> when timing, e.g. "--reps 3"),
# MBDC_BENCH_CALLS (calls per callgrind dump, default 128). The raw outputs are kept in
# BUILD_DIR/bench/flex/ (time.txt, callgrind.txt, instr.txt, arith.txt, ops.txt).
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_start "usage: bash bench/flex.sh BUILD_DIR [BENCHMARKS_MD [FLEXIBLE_MD]]" 1 3 "$@"
build=$1
md=${2:-docs/benchmarks.md}
flexmd=${3:-docs/flexible.md}
calls=${MBDC_BENCH_CALLS:-128}
lk_calls=16
target=10
list=$build/bench/flex_models.txt
[ -f "$list" ] || bench_die 2 "no $list (configure with -DMBDC_BENCH=ON)"
bench_need valgrind
out=$build/bench/flex
mkdir -p "$out"
for f in time callgrind instr arith ops; do : >"$out/$f.txt"; done

# The V128 ALU operations lackey counts in n calls of one (function, implementation): the scalar
# double arithmetic (SSE2), with the negations and register shuffles around it.
lackey() {
  valgrind --tool=lackey --detailed-counts=yes "$1" --run "$2" "$3" "$4" 2>&1 >/dev/null |
    awk '$2 == "V128" { gsub(",", "", $5); print $5 }'
}

while read -r model path; do
  [ -n "$model" ] || continue
  exe=$build/bench/bench_flex_$model
  bench_program "$exe" "$calls" "$out"
  echo "== $model: lackey" >&2
  for f in aba crba_fd; do
    for impl in generated runtime; do
      n0=$(lackey "$exe" "$f" "$impl" 0)
      n1=$(lackey "$exe" "$f" "$impl" "$lk_calls")
      echo "arith $model $f $impl $(((n1 - n0) / lk_calls))" >>"$out/arith.txt"
    done
  done
  "$build/generator/mbdc" stats "$path" --functions aba,crba_fd 2>/dev/null |
    awk -v m="$model" '$1 == "aba" || $1 == "crba_fd" { print "ops", m, $1, $2, $3, $4 }' >>"$out/ops.txt"
done <"$list"

btype=$(bench_cache "$build" CMAKE_BUILD_TYPE)
cflags=$(bench_build_flags "$build" C)
timing=$(sed -n 's/^# timing: //p' "$out/time.txt" | awk 'NR == 1')

# ratio cell: flagged below the target
mark() { awk -v x="$1" -v t="$target" 'BEGIN { if (x + 0 < t) printf "**%.1f** ✗", x; else printf "%.1f", x }'; }

# The tables (both files).
tables() {
  echo "Time per call (ns, median / minimum over all batches) and instructions per call (callgrind):"
  echo
  echo "| model | dofs (modal) | function | generated | runtime | runtime ÷ generated (time) | generated instr | runtime instr | runtime ÷ generated (instr) |"
  echo "|---|---|---|---|---|---|---|---|---|"
  awk '$1 == "#" && $2 == "model" { sub(":", "", $3); nv[$3] = $7; sub(",", "", nv[$3]); nm[$3] = $11 }
       $1 == "time" { k = $2 " " $3; med[k, $4] = $5; mn[k, $4] = $6; if (!(k in s)) { s[k] = 1; o[n++] = k } }
       $1 == "ratio" { r[$2 " " $3] = $5 }
       END { for (i = 0; i < n; i++) { k = o[i]; split(k, p, " ")
             printf "%s %s %s %s %s/%s %s/%s %s\n", p[1], nv[p[1]], nm[p[1]], p[2],
               med[k, "generated"], mn[k, "generated"], med[k, "runtime"], mn[k, "runtime"], r[k] } }' \
    "$out/time.txt" |
    while read -r model nv nm f g rt rr; do
      ig=$(awk -v m="$model" -v f="$f" '$2 == m && $3 == f && $4 == "generated" { print $5 }' "$out/instr.txt")
      ir=$(awk -v m="$model" -v f="$f" '$2 == m && $3 == f && $4 == "runtime" { print $5 }' "$out/instr.txt")
      echo "| $model | $nv ($nm) | $f | ${g/\// / } | ${rt/\// / } | $(mark "$rr") | $ig | $ir | $(awk -v a="$ir" -v b="$ig" 'BEGIN { printf "%.1f", a / b }') |"
    done
  echo
  echo "Arithmetic per call: \`mbdc stats\` of the generated function (mul + add + div), and the scalar"
  echo "double operations both implementations execute (valgrind --tool=lackey, its V128 ALU count over"
  echo "$lk_calls calls less that of none: the SSE2 arithmetic, with the sign flips and register shuffles"
  echo "around it):"
  echo
  echo "| model | function | generated: mbdc stats | generated: lackey | runtime: lackey | runtime ÷ generated (lackey) |"
  echo "|---|---|---|---|---|---|"
  awk '$1 == "ops" { ops[$2 " " $3] = $4 + $5 + $6 }
       $1 == "arith" { k = $2 " " $3; a[k, $4] = $5; if (!(k in s)) { s[k] = 1; o[n++] = k } }
       END { for (i = 0; i < n; i++) { k = o[i]; split(k, p, " ")
             printf "| %s | %s | %d | %d | %d | %.1f |\n", p[1], p[2], ops[k], a[k, "generated"],
               a[k, "runtime"], a[k, "runtime"] / a[k, "generated"] } }' "$out/ops.txt" "$out/arith.txt"
}

section() {
  echo "<!-- flexible: bench/flex.sh -->"
  echo "## Flexible bodies"
  echo
  echo "Written by \`bash bench/flex.sh $build\` on $(date -u +%Y-%m-%d) (this section only; the rest"
  echo "of the file is scripts/bench.sh's). One run on the same shared 2-core machine: compare the"
  echo "ratios of one table, measured side by side; the instruction and operation counts are exact."
  echo
  bench_machine "$build"
  echo "| flags | build type $btype: \`$cflags\` (generated code: -std=c99; runtime and bench_flex.c: -std=c11) |"
  echo "| timing | $timing; CLOCK_MONOTONIC, after a warm-up |"
  echo "| instructions | $(valgrind --version) --tool=callgrind, $calls calls per (model, function, implementation) after a warm-up of as many |"
  echo
  cat <<'EOF'
Target (the flexible-body issue): the generated `aba` and `crba_fd` at least 10× faster than the
runtime's `mb_aba` and `mb_crba_fd`; below it a ratio is **bold** and marked ✗. What is timed
(`bench/bench_flex.c`): in one process, the same 64 random states (joint angles in [−π, π), modal
coordinates in [−0.05, 0.05), v and τ in [−1, 1)), batch by batch interleaved, each
implementation's batches going on through the states where its last one stopped. Models:
`flexible_arm` and `flexible_arm_nodal` are the examples; `flex_chain_N_M` is
`bench/flex_chain.sh N M`: N flexible bodies of M modes, nodal data on 4 nodes with every
shape component nonzero, a dense stiffness, revolute joints on the tips ([flexible.md](flexible.md),
"Operation counts"). Every generated function agrees with the runtime to 1e-10 on the timed states
(checked before timing).

EOF
  tables
  echo
  echo "Why the chains miss the target: [flexible.md](flexible.md), \"Benchmark\"."
  echo "<!-- /flexible -->"
}

section >"$tmp/section.md"
bench_md_write "$md" "$tmp/section.md"
{
  echo "<!-- flex-bench: bench/flex.sh -->"
  echo "Measured by \`bash bench/flex.sh $build\` on $(date -u +%Y-%m-%d) ($btype, \`$cflags\`; one run, shared 2-core machine):"
  echo
  tables
  echo "<!-- /flex-bench -->"
} >"$tmp/flex.md"
bench_md_write "$flexmd" "$tmp/flex.md" existing || true # a message when it has no such section
