#!/usr/bin/env bash
# Batch functions (mbdc generate --batch): states per second of the batch form of rnea, crba and
# aba against the scalar form, on one core, and of the threaded form on two, for the Panda
# (examples/urdf/panda.urdf as it is: 9 joints, the 2 fingers included) and Solo12 (floating
# base). Each robot's code is compiled in two configurations, with -fopenmp:
#   v3       gcc -std=c99 -O3 -march=x86-64-v3 -ffp-contract=fast   (AVX2: 4 lanes)
#   native   gcc -std=c99 -O3 -march=native -ffp-contract=fast      (8 lanes where AVX-512 is)
# and timed by bench/batch_driver.c (-O2 -fopenmp) over N random states (MBDC_BATCH_STATES,
# default 1000: not a power of two, see below), run twice:
#   OMP_NUM_THREADS=1 taskset -c 0     the per-core figures: scalar and batch;
#   OMP_NUM_THREADS=2 taskset -c 0,1   the threaded form, over that run's own one-thread batch.
# The issue's targets: batch at least 3 times scalar at v3, 5 times at native, and the threaded
# form at least 1.8 times the one-thread batch on 2 cores.
# Printed as markdown; with BENCHMARKS_MD also written there, between the lines
#   <!-- batch: bench/batch.sh -->  and  <!-- /batch -->  (appended when absent).
#
# usage: bash bench/batch.sh MBDC [BENCHMARKS_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc and taskset (util-linux);
#   without OpenMP (gcc's -fopenmp, libgomp) or a second processor the threaded form is not
#   measured. Takes about 2 minutes (compiles included).
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/batch.sh MBDC [BENCHMARKS_MD]" "$@"
bench_need gcc taskset
states=${MBDC_BATCH_STATES:-1000}
funcs="rnea crba aba"
v3_target=3
native_target=5
threads_target=1.8

# config, -march
configs="v3 x86-64-v3
native native"
# robot, model, mbdc flags ("-" for none)
robots="panda $root/examples/urdf/panda.urdf -
solo12 $root/examples/urdf/solo12.urdf --floating-base"

# OpenMP, and a second processor for the threaded run
omp=-fopenmp
printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' >"$tmp/omp.c"
gcc -fopenmp "$tmp/omp.c" -o "$tmp/omp" 2>/dev/null || omp=
no_threads=
if [ -z "$omp" ]; then
  no_threads="gcc's \`-fopenmp\` does not link here (no libgomp)"
elif [ "$(nproc)" -lt 2 ]; then
  no_threads="this machine has one processor"
fi
[ -z "$no_threads" ] || echo "== threaded form not measured: $no_threads" >&2

# run D R ENV... -- PIN...: D/driver under the ENV and the pinning, its output in D/runR.txt;
# "rR ROBOT CONFIG FUNC FORM NS" lines appended to data.txt.
run() {
  local d=$1 r=$2 robot=$3 config=$4
  shift 4
  if ! env "$@" "$d/driver" "$states" >"$d/run$r.txt"; then
    cat "$d/run$r.txt" >&2
    bench_die 1 "$robot, $config: $d/driver failed (run $r: $*)"
  fi
  grep '^check\|^failed\|^threads' "$d/run$r.txt" | tr '\n' ';' | sed 's/^/   /; s/;$/\n/' >&2
  awk -v r="$r" -v robot="$robot" -v c="$config" '$1 == "time" {
    print "r" r, robot, c, $2, $3, $4 }' "$d/run$r.txt" >>"$tmp/data.txt"
}

: >"$tmp/data.txt"
while read -r robot model flags; do
  echo "== $robot: generate (--batch --functions rnea,crba,aba; flags $flags)" >&2
  bench_generate "$tmp/$robot/gen" "$model" "$flags" --batch --functions "${funcs// /,}" \
    >/dev/null
done <<<"$robots"
load0=$(cut -d' ' -f1 /proc/loadavg)
while read -r config march; do
  cflags="-std=c99 -O3 -march=$march -ffp-contract=fast"
  echo "cflags $config $cflags" >>"$tmp/data.txt"
  while read -r robot _; do
    gen=$tmp/$robot/gen
    d=$tmp/$robot/$config
    mkdir -p "$d"
    p=$(bench_prefix "$gen")
    pu=$(echo "$p" | tr '[:lower:]' '[:upper:]')
    echo "== $robot, $config: compile ($cflags $omp), time ($states states)" >&2
    # shellcheck disable=SC2086 # the flags are words
    gcc $cflags $omp -c "$gen/${p}_dynamics.c" -o "$d/dyn.o"
    # the lanes the batch functions use: <P>_LANES, set in <p>_dynamics.c from the flags
    # shellcheck disable=SC2086
    lanes=$(gcc $cflags $omp -E -dM "$gen/${p}_dynamics.c" |
      awk -v m="${pu}_LANES" '$1 == "#define" && $2 == m { print $3 }')
    [ -n "$lanes" ] || bench_die 1 "no ${pu}_LANES in $gen/${p}_dynamics.c"
    echo "lanes $robot $config $lanes" >>"$tmp/data.txt"
    # shellcheck disable=SC2086
    gcc $bench_cflags_drv $omp -I"$root/bench" -DHEADER="\"$gen/${p}_dynamics.h\"" \
      -DPFX="$p" -DPFX_UP="$pu" "$root/bench/batch_driver.c" "$root/bench/bench_harness.c" \
      "$d/dyn.o" -lm -o "$d/driver"
    run "$d" 1 "$robot" "$config" OMP_NUM_THREADS=1 taskset -c 0
    [ -n "$no_threads" ] || run "$d" 2 "$robot" "$config" OMP_NUM_THREADS=2 taskset -c 0,1
  done <<<"$robots"
done <<<"$configs"

table() {
  echo "| robot | function | flags | scalar (states/s) | batch (states/s) | batch ÷ scalar |" \
    "2 threads (states/s) | threads ÷ batch |"
  echo "|---|---|---|---|---|---|---|---|"
  awk -v tv3="$v3_target" -v tnat="$native_target" -v tthr="$threads_target" '
    # x states/s to 3 significant digits, thousands grouped: 1,230,000
    function rate(ns,  x, e, s, out) {
      if (ns == "") return "—"
      x = 1e9 / ns; e = int(log(x) / log(10)); if (e < 2) e = 2
      s = sprintf("%.0f", int(x / 10 ^ (e - 2) + 0.5) * 10 ^ (e - 2)); out = ""
      while (length(s) > 3) {
        out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3)
      }
      return s out
    }
    function ratio(num, den, t,  x, s) {
      if (num == "" || den == "") return "—"
      x = num / den; s = sprintf("%.2f", x)
      return x < t + 0 ? "**" s "** ✗ (below " t ")" : s
    }
    $1 == "lanes" { lanes[$2, $3] = $4; if (!(($2) in seen)) { seen[$2] = 1; order[++n] = $2 } }
    $1 ~ /^r[12]$/ { t[$1, $2, $3, $4, $5] = $6 }
    END {
      split("rnea crba aba", fs, " "); split("v3 native", cs, " ")
      for (i = 1; i <= n; i++) {
        r = order[i]
        for (k = 1; k <= 3; k++) {
          f = fs[k]
          for (j = 1; j <= 2; j++) {
            c = cs[j]; target = c == "v3" ? tv3 : tnat
            printf "| %s | %s | `%s` (%s lanes) | %s | %s | %s | %s | %s |\n", r, f, c, lanes[r, c],
              rate(t["r1", r, c, f, "scalar"]), rate(t["r1", r, c, f, "batch"]),
              ratio(t["r1", r, c, f, "scalar"], t["r1", r, c, f, "batch"], target),
              rate(t["r2", r, c, f, "threads"]),
              ratio(t["r2", r, c, f, "batch"], t["r2", r, c, f, "threads"], tthr)
          }
        }
      }
    }' "$tmp/data.txt"
}

# lanes of a config: "4" or, should the robots differ, "4 (panda), 8 (solo12)"
lanes_of() {
  awk -v c="$1" '$1 == "lanes" && $3 == c { l[++n] = $4; r[n] = $2 }
    END { s = l[1]; d = ""; for (i = 1; i <= n; i++) { d = d (i > 1 ? ", " : "") l[i] " (" r[i] ")"
          if (l[i] != l[1]) s = "" } print s != "" ? s : d }' "$tmp/data.txt"
}

section() {
  local cpu v3 nat
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1')
  v3=$(awk '$1 == "cflags" && $2 == "v3" { $1 = $2 = ""; sub(/^ +/, ""); print }' "$tmp/data.txt")
  nat=$(awk '$1 == "cflags" && $2 == "native" { $1 = $2 = ""; sub(/^ +/, ""); print }' \
    "$tmp/data.txt")
  echo "<!-- batch: bench/batch.sh -->"
  echo "## Batch functions (states per second)"
  echo
  echo "What \`mbdc generate --batch\` buys: \`<p>_f_batch(n, ...)\` computes n states held"
  echo "in structure-of-arrays layout (element k of state i at \`x[k * n + i]\`) in blocks of"
  echo "\`<P>_LANES\` states, each statement a loop over the block that the compiler"
  echo "vectorizes; \`<p>_f_batch_threads\` shares the blocks among OpenMP's threads. For"
  echo "\`rnea\`, \`crba\` and \`aba\` of the Panda (\`examples/urdf/panda.urdf\` as it is,"
  echo "9 joints with the 2 fingers) and Solo12 (\`--floating-base\`), over $states random"
  echo "states (q in [-3, 3], unnormalised quaternions; v, a and tau in [-1, 1]),"
  echo "\`bench/batch_driver.c\` times three forms, each computing all $states states into an"
  echo "output array of $states states: the scalar function called on each state in turn"
  echo "(state-major arrays), the batch function and the threaded one (both on the same states"
  echo "in structure-of-arrays layout). Their outputs are first checked equal to the scalar"
  echo "ones to 1e-9 relative (and \`aba\`'s statuses equal). The code is compiled by gcc"
  echo "with \`-fopenmp\` at \`$v3\` (\`v3\`)"
  echo "and at \`$nat\` (\`native\`); \`<P>_LANES\`"
  echo "follows from the flags (8 where \`__AVX512F__\` is defined, else 4). Each form's figure"
  echo "is its best of 15 measurements of at least 20 ms, the three forms of a function measured"
  echo "in turn, round-robin, so that a slow spell of the machine falls on all three. Scalar and"
  echo "batch come from a run pinned to one core"
  echo "(\`OMP_NUM_THREADS=1 taskset -c 0\`): per core. \"2 threads\" comes from a second run"
  echo "(\`OMP_NUM_THREADS=2 taskset -c 0,1\`), and threads ÷ batch is its threaded form over"
  echo "the one-thread batch form measured interleaved with it in that same run (on the same"
  echo "load; not over the batch column, which is the first run's). The threaded form needs"
  echo "both cores: another process running on either one stalls every pass at OpenMP's"
  echo "barrier, so this figure is the one the machine's load (the load row below) hurts most."
  if [ -n "$no_threads" ]; then
    echo "The threaded form was not measured: $no_threads."
  fi
  echo "N is $states, not a power of two: with 1024 every output row of the structure-of-arrays"
  echo "layout is 8 KiB from the next, in the same few cache sets, and \`crba\`, which writes"
  echo "nv² rows, ran about twice as slowly (Solo12: 404 against 189 ns a state, \`v3\`)."
  echo "The issue's targets: batch ÷ scalar at least $v3_target at \`v3\` and $native_target"
  echo "at \`native\` on an AVX-512 machine, threads ÷ batch at least $threads_target on 2"
  echo "cores; a miss is **bold** and marked ✗. One run on a shared 2-core virtual machine,"
  echo "whose load varies: quote it as one run, never as a typical speed."
  echo
  table
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bash bench/batch.sh $mbdc${md:+ $md}\` |"
  echo "| date | $(date -u +%Y-%m-%d) |"
  echo "| CPU | $cpu, $(nproc) cores ($(uname -sr)) |"
  echo "| compiler | $(gcc --version | head -1) |"
  echo "| load | 1-minute load average $load0 at the start, $(cut -d' ' -f1 /proc/loadavg)" \
    "at the end (\`/proc/loadavg\`) |"
  echo "| lanes (\`<P>_LANES\`) | \`v3\`: $(lanes_of v3), \`native\`:" \
    "$(lanes_of native) |"
  if [ -n "$omp" ]; then
    echo "| threads | OpenMP (gcc \`-fopenmp\`, libgomp), \`OMP_NUM_THREADS=2\` |"
  else
    echo "| threads | none: $no_threads |"
  fi
  echo "<!-- /batch -->"
}

section >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
