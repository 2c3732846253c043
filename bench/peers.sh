#!/usr/bin/env bash
# Against RBDL and Pinocchio: instructions per call of the generated rnea, crba and aba (and the
# Panda's aba_wrenches) of six URDF robots, compiled at the issue's flags (gcc -O3
# -march=x86-64-v3 -ffp-contract=fast) and counted by callgrind over 64 random states
# (bench/peers_driver.c), against fixed reference figures of the peer libraries (the best of
# RBDL 3.3.1 and Pinocchio 3.7.0 per function, measured on this machine; the libraries are not
# bundled). Printed as the markdown section "Against RBDL and Pinocchio"; with BENCHMARKS_MD also
# written there, between the lines
#   <!-- peers: bench/peers.sh -->  and  <!-- /peers -->   (appended when absent).
#
# usage: bash bench/peers.sh MBDC [BENCHMARKS_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc, valgrind and
#   callgrind_annotate. The humanoids take up to a minute each to compile at -O3.
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/peers.sh MBDC [BENCHMARKS_MD]" "$@"
bench_need gcc valgrind callgrind_annotate
states=$bench_states
target=4

# robot, model, mbdc flags, functions. The Panda's two prismatic finger joints are made fixed
# (as in the peers' reference models: the arm's 7 joints).
robots="panda $(bench_panda_fixed "$tmp") - rnea,crba,aba,aba_wrenches
ur5 $root/examples/urdf/ur5.urdf - rnea,crba,aba
solo12 $root/examples/urdf/solo12.urdf --floating-base rnea,crba,aba
anymal_b $root/examples/urdf/anymal_b.urdf --floating-base rnea,crba,aba
simple_humanoid $root/examples/urdf/simple_humanoid.urdf --floating-base rnea,crba,aba
romeo_small $root/examples/urdf/romeo_small.urdf --floating-base rnea,crba,aba"

# "instr ROBOT FUNC INSTRUCTIONS_PER_CALL" lines.
: >"$tmp/instr.txt"
while read -r robot model flags funcs; do
  d=$tmp/$robot
  echo "== $robot: generate ($funcs; flags $flags), compile, callgrind" >&2
  bench_generate "$d/gen" "$model" "$flags" --functions "$funcs" >/dev/null
  defs=()
  case ",$funcs," in *,aba_wrenches,*) defs+=(-DWITH_ABA_WRENCHES) ;; esac
  bench_driver "$d/gen" "$d/driver" "${defs[@]}"
  bench_callgrind_driver "$d"
  echo "   $(cat "$d/driver.txt")" >&2
  # the timer (one output array, as a controller's), run below
  bench_driver "$d/gen" "$d/timer" "${defs[@]}" -DTIMING
  for f in ${funcs//,/ }; do
    n=$(bench_per_call "$d" "$f")
    echo "instr $robot $f $n" >>"$tmp/instr.txt"
  done
done <<<"$robots"

# The time per call: the best of every robot's timer over 5 rounds and both processors
# (bench_best_times): "time ROBOT FUNC NS".
rounds=5
# shellcheck disable=SC2046 # the robots' names are words
bench_best_times "$rounds" "$tmp" $(awk '{ print $1 }' <<<"$robots") >>"$tmp/instr.txt"

# The peers' reference figures (instructions per call, the best of RBDL 3.3.1 and Pinocchio
# 3.7.0 built with gcc 12 at -O3 -march=x86-64-v3) and, for the Panda's aba_wrenches, SD/FAST's
# (its target is a ratio of 3).
cat >"$tmp/peers.txt" <<'EOF'
panda rnea 4919
panda crba 6121
panda aba 12834
panda aba_wrenches 10226
ur5 rnea 4264
ur5 crba 5050
ur5 aba 10908
solo12 rnea 9754
solo12 crba 11443
solo12 aba 27461
anymal_b rnea 9750
anymal_b crba 11439
anymal_b aba 27457
EOF

table() {
  echo "| robot | function | peer | mbdc | ratio |"
  echo "|---|---|---|---|---|"
  awk -v target="$target" '
    FNR == 1 { file++ }
    file == 1 { peer[$1, $2] = $3 }
    file == 2 && $1 == "instr" {
      r = $2; f = $3; n = $4
      if (!((r, f) in peer)) { printf "| %s | %s | — | %s | — |\n", r, f, n; next }
      t = target; p = peer[r, f]
      if (r == "panda" && f == "aba_wrenches") { t = 3; p = p " (SD/FAST sdstate+sdhinget+sdderiv+sdreac)" }
      x = peer[r, f] / n
      printf "| %s | %s | %s | %s | %.1f%s |\n", r, f, p, n, x, x < t ? " (below " t ")" : ""
    }' "$tmp/peers.txt" "$tmp/instr.txt"
}

# Time per call against instructions: instructions per ns of each function, and how much slower
# per instruction it runs than the same function of the Panda (whose code fits the L1
# instruction cache many times over): the cost of code size, the issue's target at most 1.25.
time_table() {
  echo "| robot | function | instructions | ns per call | instructions per ns | slowdown per instruction against the Panda |"
  echo "|---|---|---|---|---|---|"
  awk '
    $1 == "instr" { n[$2, $3] = $4; order[++k] = $2 SUBSEP $3 }
    $1 == "time" { t[$2, $3] = $4 }
    END {
      for (i = 1; i <= k; i++) {
        split(order[i], rf, SUBSEP); r = rf[1]; f = rf[2]
        if (!((r, f) in t) || t[r, f] <= 0) continue
        ipns = n[r, f] / t[r, f]
        ref = (("panda", f) in t) ? n["panda", f] / t["panda", f] : 0
        slow = ref > 0 ? sprintf("%.2f%s", ref / ipns, ref / ipns > 1.25 ? " (above 1.25)" : "") : "—"
        printf "| %s | %s | %s | %.1f | %.1f | %s |\n", r, f, n[r, f], t[r, f], ipns, slow
      }
    }' "$tmp/instr.txt"
}

section() {
  echo "<!-- peers: bench/peers.sh -->"
  echo "## Against RBDL and Pinocchio (instructions per call)"
  echo
  echo "The generated functions compiled with gcc at \`-O3 -march=x86-64-v3 -ffp-contract=fast\`"
  echo "(-std=c99), counted by callgrind over $states random states (\`bench/peers.sh\`: each function"
  echo "called once per state inside its own noinline loop in \`bench/peers_driver.c\`, whose inclusive"
  echo "count ÷ $states is the figure, the loop's few instructions per call included; q uniform in"
  echo "[-3, 3], v, a, τ in [-1, 1]). The peers' figures are fixed reference values measured on this"
  echo "machine with RBDL 3.3.1 and Pinocchio 3.7.0 built with gcc 12 at \`-O3 -march=x86-64-v3\`"
  echo "(the best of the two per function; the libraries are not bundled). The target is a ratio"
  echo "peer ÷ mbdc of at least $target. The Panda is \`examples/urdf/panda.urdf\` with its two"
  echo "prismatic finger joints made fixed (7 joints); Solo12, ANYmal B and the humanoids have a"
  echo "floating base (\`--floating-base\`)."
  echo
  table
  echo
  echo "The Panda's \`aba_wrenches\` (forward dynamics with every joint's reaction wrench) is compared"
  echo "with SD/FAST's sdstate+sdhinget+sdderiv+sdreac; its target is at most 3400 instructions per"
  echo "call, a ratio of at least 3.0. simple_humanoid and romeo_small have no peer figures."
  echo
  echo "**Time per call, and what code size costs.** The same code timed on this machine"
  echo "(\`peers_driver.c\` built with \`-DTIMING\`: each function over the $states states, best of 30"
  echo "runs of 100 (fewer where 100 take over 2 ms), one output array for every state as a"
  echo "controller has; the robots' timers run one after the other in $rounds rounds, in each once"
  echo "pinned to each processor, and each function's figure is its best run: the two processors of"
  echo "this shared virtual machine run the same code up to 1.45 times apart, and the whole machine"
  echo "slows by as much at times). A function's instructions per ns against the same function of"
  echo "the Panda, whose code fits the 32 KiB L1 instruction cache many times over, show what its"
  echo "size costs: the issue's target is a slowdown per instruction of at most 1.25 on the"
  echo "humanoids."
  echo
  time_table
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bash bench/peers.sh $mbdc${md:+ $md}\` |"
  echo "| date | $(date -u +%Y-%m-%d) |"
  echo "| compiler | $(gcc --version | head -1) |"
  echo "| C library | $(ldd --version | head -1) |"
  echo "| instructions | $(valgrind --version) --tool=callgrind |"
  echo "<!-- /peers -->"
}

section >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
