#!/usr/bin/env bash
# The benchmark suite (issue 6), one command: builds the bench programs in two configurations
# (-O2, and -O3 -march=native), runs every bench_<robot> (generated code vs runtime vs MuJoCo, same
# states, same process), counts instructions per call with callgrind, collects `mbdc stats`, and
# writes docs/benchmarks.md and docs/benchmarks.png; then bench/loops.sh (closed loops, when
# Simbody is there), bench/peers.sh (instructions per call against RBDL's and Pinocchio's reference
# figures, when valgrind is there), bench/icache.sh (code size and the L1 instruction cache, when
# valgrind is there), bench/parameters.sh (run-time inertial parameters against constants, when
# valgrind is there), bench/regressor.sh (the regressors against rnea, when valgrind is there),
# bench/batch.sh (the batch functions' states per second, when taskset is there) and
# bench/flex.sh (flexible bodies: also the tables of docs/flexible.md) write their sections.
#
#   bash scripts/bench.sh
#
# Environment: MBDC_BENCH_CONFIGS (default "O2 native"), MBDC_BENCH_ARGS (passed to every
# bench_<robot>, e.g. "--reps 3" for a quicker run), MBDC_BENCH_CALLS (calls per callgrind dump,
# default 128: every one of the 64 states twice; the counts are exact). Takes about half an hour
# on 2 cores, mostly building (the humanoids take ~45 s each to compile per configuration) and
# callgrind; quote its figures as one run, never as a typical speed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)
configs=${MBDC_BENCH_CONFIGS:-O2 native}
calls=${MBDC_BENCH_CALLS:-128}
res=build-bench/results
rm -rf "$res"
mkdir -p "$res/stats"

flags_of() {
  case $1 in
  O2) echo "-O2" ;;
  native) echo "-O3 -march=native" ;;
  *) echo "bench.sh: unknown configuration $1" >&2; exit 2 ;;
  esac
}

for c in $configs; do
  dir=build-bench/$c
  echo "== build $c ($(flags_of "$c"))"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="$(flags_of "$c")" \
    -DMBDC_TESTS=OFF -DMBDC_BENCH=ON "-DMBDC_BENCH_FLEX_CHAINS=3_5;6_10" >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
  mkdir -p "$res/$c"
  while read -r robot _; do
    echo "== $c: bench_$robot"
    # shellcheck disable=SC2086
    "$dir/bench/bench_$robot" ${MBDC_BENCH_ARGS:-} >"$res/$c/$robot.txt"
  done <"$dir/bench/robots.txt"
done

first=${configs%% *}
cp "build-bench/$first/bench/robots.txt" "$res/robots.txt"
while read -r robot model flags; do
  # shellcheck disable=SC2086 # flags: --floating-base or nothing
  "build-bench/$first/generator/mbdc" stats "$model" $flags --json >"$res/stats/$robot.json"
done <"$res/robots.txt"

echo "== callgrind ($first build, $calls calls per function)"
bash bench/callgrind.sh "build-bench/$first" "$calls" >"$res/instr.txt"

cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "build-bench/$first/CMakeCache.txt")
robot1=$(awk 'NR == 1 { print $1 }' "$res/robots.txt")
{
  printf 'date\t%s\n' "$(date -u +%Y-%m-%d)"
  printf 'cpu\t%s, %s cores (%s)\n' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1')" \
    "$(nproc)" "$(uname -sr)"
  printf 'compiler\t%s (%s)\n' "$("$cc" --version | awk 'NR == 1')" "$cc"
  for c in $configs; do printf 'flags_%s\t%s -std=c99 (generated) / -std=c11 (runtime, bench)\n' "$c" "$(flags_of "$c")"; done
  printf 'mujoco\t2.2.2, Debian package libmujoco-dev %s (built by Debian, its own flags)\n' \
    "$(dpkg-query -W -f='${Version}' libmujoco-dev 2>/dev/null || echo '?')"
  printf 'timing\t%s; CLOCK_MONOTONIC, after a warm-up of up to 10^4 calls (about 10 batches) each\n' \
    "$(sed -n 's/^# timing: //p' "$res/$first/$robot1.txt")"
  printf 'instr\t%s, %s calls per function after a warm-up of as many\n' \
    "$(valgrind --version) --tool=callgrind" "$calls"
  printf 'command\tbash scripts/bench.sh%s\n' "${MBDC_BENCH_ARGS:+ (MBDC_BENCH_ARGS=\"$MBDC_BENCH_ARGS\")}"
  printf 'configs\t%s\n' "$configs"
} >"$res/meta.txt"

bash bench/report.sh "$res" docs/benchmarks.md docs/benchmarks.png
echo "== wrote docs/benchmarks.md and docs/benchmarks.png"
# Closed loops (bench_loops: generated p_fd_loops vs mb_fd_loops vs Simbody), when Simbody is there.
if [ -x "build-bench/$first/bench/bench_loops" ]; then
  MBDC_BENCH_CALLS=$calls bash bench/loops.sh "build-bench/$first" docs/benchmarks.md
fi
# Controller functions (bench_controller: the Panda's TCP Jacobian and Solo12's contact_fd vs the
# runtime and MuJoCo).
if [ -x "build-bench/$first/bench/bench_controller" ]; then
  bash bench/controller.sh "build-bench/$first" docs/benchmarks.md
fi
# Against RBDL and Pinocchio (bench/peers.sh: instructions per call of the generated rnea, crba
# and aba at -O3 -march=x86-64-v3 -ffp-contract=fast against the peers' fixed reference figures).
if command -v valgrind >/dev/null; then
  bash bench/peers.sh "build-bench/$first/generator/mbdc" docs/benchmarks.md
  # Code size against the instruction cache (bench/icache.sh: simulated L1i misses, and time
  # against the runtime's loops, from the Panda to a 140-body tree).
  bash bench/icache.sh "build-bench/$first/generator/mbdc" docs/benchmarks.md
  # Run-time inertial parameters (bench/parameters.sh: instructions per call of rnea, crba and aba
  # with --parameters of one body and of all against the constant code).
  bash bench/parameters.sh "build-bench/$first/generator/mbdc" docs/benchmarks.md
  # The regressors (bench/regressor.sh: instructions per call of regressor and base_regressor
  # against rnea).
  bash bench/regressor.sh "build-bench/$first/generator/mbdc" docs/benchmarks.md
fi
# Batch functions (bench/batch.sh: states per second of rnea, crba and aba's batch and threaded
# forms against the scalar functions, at -march=x86-64-v3 and -march=native), when taskset is
# there.
if command -v taskset >/dev/null; then
  bash bench/batch.sh "build-bench/$first/generator/mbdc" docs/benchmarks.md
fi
# Flexible bodies (bench_flex_<model>: generated aba and crba_fd vs mb_aba and mb_crba_fd).
if [ -f "build-bench/$first/bench/flex_models.txt" ]; then
  MBDC_BENCH_CALLS=$calls bash bench/flex.sh "build-bench/$first" docs/benchmarks.md docs/flexible.md
fi
