#!/usr/bin/env bash
# Closed loops: times and instruction counts of bench_loops (bench/bench_loops.cpp: the generated
# p_fd_loops against the runtime's mb_fd_loops and Simbody 3.7 on five_bar and quarter_car) and
# the section "Closed loops" of docs/benchmarks.md, between the markers
#   <!-- closed-loops: bench/loops.sh -->  and  <!-- /closed-loops -->
# (appended when absent). bench/report.sh keeps this section when it rewrites the rest of the file,
# and scripts/bench.sh runs this script after it.
#
# usage: bash bench/loops.sh BUILD_DIR [MARKDOWN]      (MARKDOWN: default docs/benchmarks.md)
#   BUILD_DIR has bench/bench_loops built (libsimbody-dev installed; configured with MBDC_BENCH=ON).
# Environment: MBDC_BENCH_ARGS (passed to bench_loops, e.g. "--reps 3"), MBDC_BENCH_CALLS (calls
# per callgrind dump, default 128: every one of the 64 states twice).
# The raw outputs are kept in BUILD_DIR/bench/loops/ (time.txt, callgrind.txt, instr.txt).
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_start "usage: bash bench/loops.sh BUILD_DIR [MARKDOWN]" 1 2 "$@"
build=$1
md=${2:-docs/benchmarks.md}
calls=${MBDC_BENCH_CALLS:-128}
target=10
exe=$build/bench/bench_loops
[ -x "$exe" ] || bench_die 2 "no $exe (is libsimbody-dev installed?)"
bench_need valgrind
out=$build/bench/loops
mkdir -p "$out"
for f in time callgrind instr; do : >"$out/$f.txt"; done
bench_program "$exe" "$calls" "$out"

btype=$(bench_cache "$build" CMAKE_BUILD_TYPE)
cflags=$(bench_build_flags "$build" C)
cxxflags=$(bench_build_flags "$build" CXX)
timing=$(sed -n 's/^# timing: //p' "$out/time.txt")

# ratio cell: flagged below the target
mark() { awk -v x="$1" -v t="$target" 'BEGIN { if (x + 0 < t) printf "**%.1f** ✗", x; else printf "%.1f", x }'; }

section() {
  echo "<!-- closed-loops: bench/loops.sh -->"
  echo "## Closed loops"
  echo
  echo "Written by \`bash bench/loops.sh $build\` on $(date -u +%Y-%m-%d) (this section only; the"
  echo "rest of the file is scripts/bench.sh's). One run on the same shared 2-core machine: compare"
  echo "the ratios of one table, measured side by side; the instruction counts are exact."
  echo
  bench_machine "$build"
  echo "| flags | build type $btype: \`$cflags\` (generated code: -std=c99; runtime: -std=c11); bench_loops.cpp and the mapping \`$cxxflags -UNDEBUG\` |"
  echo "| Simbody | 3.7, Debian package libsimbody-dev $(dpkg-query -W -f='${Version}' libsimbody-dev 2>/dev/null || echo '?') (built by Debian with its own flags; without NDEBUG: its debug-build checks are compiled in) |"
  echo "| timing | $timing; CLOCK_MONOTONIC, after a warm-up |"
  echo "| instructions | $(valgrind --version) --tool=callgrind, $calls calls per (model, function, implementation) after a warm-up of as many |"
  echo
  cat <<'EOF'
Target (the closed-loop issue): the generated `p_fd_loops` at least 10× faster than Simbody's
acceleration realization and than the runtime's `mb_fd_loops`, on the five-bar and the quarter
car; below it a ratio is **bold** and marked ✗. A time ratio within some 15% of the target can
fall on either side from one run to the next on this shared machine; the instruction ratio does
not change.

What is timed (`bench/bench_loops.cpp`), in one process on the same 64 random assembled states
per model (a random step from the assembled configuration projected by `mb_project_q`, a random
v projected by `mb_project_v`, τ uniform in [−2, 2)), batch by batch interleaved as in
`bench_main.c` (every implementation makes the same calls on the same sequence of states, each
batch going on through the 64 states where the last stopped), ns per call, median / minimum over
all batches:

| column | one call |
|---|---|
| generated | `<p>_fd_loops(q, v, τ, q̈, λ)` (for `fd_loops_spring`: `<p>_passive_forces(q, v)` + τ first) |
| runtime | `mb_fd_loops` (for `fd_loops_spring`: `mb_passive_forces` + τ first) |
| Simbody | forward dynamics from a new state: `state.updQ() = Q`, `state.updU() = U`, `DiscreteForces::setAllMobilityForces(state, τ)`, `system.realize(state, Stage::Acceleration)`, `getUDot()` copied out. Setting Q invalidates Stage::Position, so this realizes Position, Velocity, Dynamics and Acceleration: the work `p_fd_loops` does from q, v, τ. **This is the target's comparison.** |
| Simbody dyn | Dynamics and Acceleration only: one State per random state, realized through Velocity beforehand; each call sets the mobility forces (which invalidates Stage::Dynamics), realizes Acceleration, copies `getUDot()`. A lower bound of Simbody's cost, reached only when q and v do not change (never in a simulation); shown for scale, not the target's measure. |

The mechanism in Simbody is the runtime's model, loops and springs rebuilt generically by
`tests/mbt_simbody.cpp` (the cross-check's mapping, docs/loops_simbody.md: Pin, Slider, Ball
mobilizers; `Constraint::Ball` for the quarter car's spherical loops, `PointInPlane` for the
five-bar's kept rows; only the independent rows `mbdc check` keeps). Simbody's Q, U and
mobility forces for each state are converted from ours once, before timing; the conversion of
U̇ back to our coordinates is not timed either. Functions:

- `fd_loops`: q̈ from q, v, τ with no spring anywhere (the Simbody system built without it).
- `fd_loops_spring` (quarter car only: its strut): the same with the spring-damper on all three
  sides — added to τ by `quarter_car_passive_forces` and by `mb_passive_forces`, and in Simbody
  as `Force::TwoPointLinearSpring` (k, free length) plus `Force::TwoPointLinearDamper` (c)
  between the same two points, realized in Stage::Dynamics.

### Time per call (ns)

| model | function | generated | runtime | Simbody | Simbody dyn | runtime ÷ generated | Simbody ÷ generated | Simbody dyn ÷ generated |
|---|---|---|---|---|---|---|---|---|
EOF
  awk '$1 == "time" { k = $2 " " $3; med[k, $4] = $5; mn[k, $4] = $6; if (!(k in s)) { s[k] = 1; o[n++] = k } }
       $1 == "ratio" { r[$2 " " $3, $4] = $5 }
       END { for (i = 0; i < n; i++) { k = o[i]; split(k, p, " ")
             printf "%s %s %s/%s %s/%s %s/%s %s/%s %s %s %s\n", p[1], p[2],
               med[k, "generated"], mn[k, "generated"], med[k, "runtime"], mn[k, "runtime"],
               med[k, "simbody"], mn[k, "simbody"], med[k, "simbody_dyn"], mn[k, "simbody_dyn"],
               r[k, "runtime"], r[k, "simbody"], r[k, "simbody_dyn"] } }' "$out/time.txt" |
    while read -r model f g rt sb sd rr rs rd; do
      echo "| $model | $f | ${g/\// / } | ${rt/\// / } | ${sb/\// / } | ${sd/\// / } | $(mark "$rr") | $(mark "$rs") | $(printf '%.1f' "$rd") |"
    done
  echo
  echo "### Instructions per call (callgrind)"
  echo
  echo "| model | function | generated | runtime | Simbody | Simbody dyn | runtime ÷ generated | Simbody ÷ generated | Simbody dyn ÷ generated |"
  echo "|---|---|---|---|---|---|---|---|---|"
  awk '$1 == "instr" { k = $2 " " $3; v[k, $4] = $5; if (!(k in s)) { s[k] = 1; o[n++] = k } }
       END { for (i = 0; i < n; i++) { k = o[i]; split(k, p, " "); g = v[k, "generated"]
             printf "| %s | %s | %d | %d | %d | %d | %.1f | %.1f | %.1f |\n", p[1], p[2], g,
               v[k, "runtime"], v[k, "simbody"], v[k, "simbody_dyn"], v[k, "runtime"] / g,
               v[k, "simbody"] / g, v[k, "simbody_dyn"] / g } }' "$out/instr.txt"
  echo
  echo "Each count includes the benchmark's loop and pointer call (~10 instructions) and, for"
  echo "Simbody, setting Q, U and the forces and copying U̇ (the calls listed above)."
  echo
  echo "### Targets missed"
  echo
  local any=0
  while read -r _ model f impl x; do
    [ "$impl" = runtime ] || [ "$impl" = simbody ] || continue
    if awk -v x="$x" -v t="$target" 'BEGIN { exit !(x + 0 < t) }'; then
      g=$(awk -v m="$model" -v f="$f" '$1 == "instr" && $2 == m && $3 == f && $4 == "generated" { print $5 }' "$out/instr.txt")
      p=$(awk -v m="$model" -v f="$f" -v i="$impl" '$1 == "instr" && $2 == m && $3 == f && $4 == i { print $5 }' "$out/instr.txt")
      echo "- $model, $f: ${x}× faster than $impl (target ${target}×); callgrind: $g instructions per call against $p, $(awk -v g="$g" -v p="$p" -v t="$target" 'BEGIN { r = p / g
        if (r < t) printf "only %.1f× fewer: the generated code does too much work for the target", r
        else printf "%.1f× fewer (the target holds in work): the time is lost to cycles per instruction, not to work", r }')."
      any=1
    fi
  done < <(grep '^ratio ' "$out/time.txt")
  [ "$any" = 1 ] || echo "None in this run."
  echo
  echo "### Agreement on the timed states"
  echo
  echo "Checked before timing (a model whose check fails is not timed): worst"
  echo "max |x − Simbody| / max |Simbody| over the 64 states of q̈ in our coordinates (Simbody dyn:"
  echo "its U̇ against the Simbody column's); bound 1e-9, test_simbody's."
  echo
  echo "| model | function | generated | runtime | Simbody dyn |"
  echo "|---|---|---|---|---|"
  awk '$1 == "check" { k = $2 " " $3; e[k, $4] = $5; if (!(k in s)) { s[k] = 1; o[n++] = k } }
       END { for (i = 0; i < n; i++) { k = o[i]; split(k, p, " ")
             printf "| %s | %s | %s | %s | %s |\n", p[1], p[2], e[k, "generated"], e[k, "runtime"],
               e[k, "simbody_dyn"] } }' "$out/time.txt"
  echo "<!-- /closed-loops -->"
}

section >"$tmp/section.md"
bench_md_write "$md" "$tmp/section.md"
