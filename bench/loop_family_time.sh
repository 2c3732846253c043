#!/usr/bin/env bash
# Wall-clock time of the generated constrained forward dynamics on bench/loop_family.c's planar
# four-bar families: p_fd_loops (Lagrange multipliers) against p_rcr (recursive coordinate
# reduction), the measured counterpart of bench/loop_family.sh's operation counts.
#   ladder K  K four-bar loops in series: n = 3K, m = 2K
#   tree K    a spine of K links, a four-bar hanging from each: n = 4K, m = 2K
# For each family and K the model is written (BUILD/bench/loop_family), generated
# (mbdc generate MODEL -o DIR --functions fd_loops,rcr), and its <prefix>_dynamics.c and
# <prefix>_model.c are compiled with bench/loop_family_time.c (cc -O2) against libmbrt.a. Every
# model is built first, then the drivers are run one after the other (nothing else of this
# script runs while one times). The driver checks that p_rcr and p_fd_loops agree to 1e-9 on its
# 64 states (q assembled, v = 0, random tau) and reports the median of 5 interleaved rounds of
# about 0.2 s per function (bench/loop_family_time.c). The table, one row per model:
#   family K n m fd_ns rcr_ns rcr/fd worst_rel gen_s cc_s
# fd_ns, rcr_ns: ns per call; worst_rel: the largest relative difference of their qdd; gen_s,
# cc_s: the wall time of mbdc generate and of compiling the generated <prefix>_dynamics.c.
#
# usage: bash bench/loop_family_time.sh BUILD_DIR OUT.dat
#   BUILD_DIR has generator/mbdc, bench/loop_family and runtime/libmbrt.a built
#   (make mbdc loop_family mbrt; configured with -DMBDC_BENCH=OFF is enough).
# Environment: MBDC_LOOP_FAMILIES (default "ladder tree"), MBDC_LOOP_FAMILY_K (default
# "1 2 4 8 16"; at K = 32 gcc 12 -O2 had not compiled ladder_32_dynamics.c, 14.8 MB, after
# 15 min and 10 GB; K = 16 takes about 1 min),
# MBDC_TIME_SECONDS (default 0.2), MBDC_TIME_ROUNDS (default 5), CC (default cc).
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_start "usage: bash bench/loop_family_time.sh BUILD_DIR OUT.dat" 2 2 "$@"
build=$(realpath "$1")
out=$2
mbdc=$build/generator/mbdc
gen=$build/bench/loop_family
lib=$build/runtime/libmbrt.a
for f in "$mbdc" "$gen" "$lib"; do
  [ -e "$f" ] || {
    echo "loop_family_time.sh: no $f (make mbdc loop_family mbrt in $build)" >&2
    exit 2
  }
done
families=${MBDC_LOOP_FAMILIES:-ladder tree}
ks=${MBDC_LOOP_FAMILY_K:-1 2 4 8 16}
seconds=${MBDC_TIME_SECONDS:-0.2}
rounds=${MBDC_TIME_ROUNDS:-5}
cc=${CC:-cc}

# seconds since START (a date +%s.%N)
since() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }'; }

# Build every model's driver: TMP/FAM_K/{time,gen_s,cc_s}
for fam in $families; do
  for k in $ks; do
    dir=$tmp/${fam}_$k
    mkdir -p "$dir"
    "$gen" "$fam" "$k" >"$dir/model.mbd"
    start=$(date +%s.%N)
    if ! "$mbdc" generate "$dir/model.mbd" -o "$dir" --functions fd_loops,rcr \
      >"$dir/gen.log" 2>&1; then
      echo "loop_family_time.sh: mbdc generate $fam $k failed:" >&2
      cat "$dir/gen.log" >&2
      exit 1
    fi
    since "$start" >"$dir/gen_s"
    # the prefix: the model's name, from the generated header
    prefix=$(bench_prefix "$dir")
    header=${prefix}_dynamics.h
    upper=$(echo "$prefix" | tr '[:lower:]' '[:upper:]')
    grep -q "define ${upper}_HAVE_RCR 1" "$dir/$header" || {
      echo "loop_family_time.sh: $fam $k: mbdc generated no p_rcr" >&2
      exit 1
    }
    flags=(-O2 -std=c11 -I "$dir" -I "$root/runtime")
    start=$(date +%s.%N)
    "$cc" "${flags[@]}" -c "$dir/${prefix}_dynamics.c" -o "$dir/dynamics.o"
    since "$start" >"$dir/cc_s"
    "$cc" "${flags[@]}" -DLF_PREFIX="$prefix" -DLF_UPPER="$upper" "$root/bench/loop_family_time.c" \
      "$root/bench/bench_harness.c" "$dir/dynamics.o" "$dir/${prefix}_model.c" "$lib" -lm \
      -o "$dir/time"
    echo "loop_family_time.sh: $fam $k: generated in $(cat "$dir/gen_s") s," \
      "${prefix}_dynamics.c ($(wc -c <"$dir/${prefix}_dynamics.c") bytes)" \
      "compiled in $(cat "$dir/cc_s") s" >&2
  done
done

# Run them one at a time
{
  echo "# bench/loop_family_time.sh: ns per call of the generated p_fd_loops (Lagrange multipliers)"
  echo "# and p_rcr (recursive coordinate reduction) on bench/loop_family.c's planar four-bar"
  echo "# families; $("$mbdc" --version 2>/dev/null | head -n 1 || echo mbdc)," \
    "$("$cc" --version | head -n 1),"
  echo "# -O2; $(date -u +%Y-%m-%d), $(nproc) cores ($(uname -m)). q assembled, v = 0," \
    "64 random tau;"
  echo "# median of $rounds interleaved rounds of ~$seconds s per function. worst_rel: the largest"
  echo "# relative difference of the two qdd; gen_s, cc_s: wall time of mbdc generate and of cc -O2"
  echo "# on <prefix>_dynamics.c (fd_loops, rcr_pivots, every rcr_<s> and p_rcr)."
  echo "family K n m fd_ns rcr_ns rcr/fd worst_rel gen_s cc_s"
  for fam in $families; do
    for k in $ks; do
      dir=$tmp/${fam}_$k
      if ! "$dir/time" "$seconds" "$rounds" >"$dir/result" 2>"$dir/rounds"; then
        echo "loop_family_time.sh: $fam $k: the driver failed:" >&2
        cat "$dir/rounds" >&2
        exit 1
      fi
      cat "$dir/rounds" >&2
      read -r nv m fd_ns rcr_ns ratio worst _ <"$dir/result"
      echo "$fam $k $nv $m $fd_ns $rcr_ns $ratio $worst $(cat "$dir/gen_s") $(cat "$dir/cc_s")"
    done
  done
} >"$tmp/table"
# aligned columns; the column names as a comment
awk '/^#/ { print; next }
     { printf "%s%-6s %3s %4s %4s %10s %10s %7s %9s %6s %7s\n", (seen++ ? "  " : "# "),
         $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$tmp/table" >"$tmp/aligned"
cp "$tmp/aligned" "$out"
cat "$out"
echo "loop_family_time.sh: wrote $out" >&2
