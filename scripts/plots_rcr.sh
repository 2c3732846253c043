#!/usr/bin/env bash
# plots_rcr.sh [BUILD_DIR] [--dat FILE] — the operation counts of p_rcr (recursive coordinate
# reduction; its common path, rcr_0, plus rcr_refine_0 where a loop hangs from another's tail)
# and p_fd_loops (Lagrange multipliers) on bench/loop_family.c's four families of planar
# closed-loop mechanisms (ladder, tree, shared, hung), against n + m (velocity coordinates + kept
# constraint rows):
#   docs/loops_rcr_scaling.png  ops = mul + add + div + sqrt + trig of both functions for every
#                               family, log-log, with the least-squares line ops = a (n + m) + b
#                               fitted to p_rcr's points of each family (over every K); the
#                               slopes a are in the legend
# and prints a table: per family the fitted a, b and the R^2 of the linear fit, then the ratio
# p_rcr / fd_loops at each K.
#
# Without --dat it builds mbdc and loop_family in BUILD_DIR (default build/, configured with
# cmake -S . -B build -DMBDC_BENCH=OFF if it is not) and runs
#   bash bench/loop_family.sh BUILD_DIR bench/loop_family.dat
# (rewriting bench/loop_family.dat, some 15 s); with --dat FILE it only plots FILE (a table of
# bench/loop_family.sh). Needs gnuplot (Debian: gnuplot-nox).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: bash scripts/plots_rcr.sh [BUILD_DIR] [--dat FILE]"
build=$root/build
dat=
while [ $# -gt 0 ]; do
  case $1 in
    --dat) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; dat=$(realpath "$2"); shift 2 ;;
    -h | --help) echo "$usage"; exit 0 ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) build=$(realpath "$1"); shift ;;
  esac
done
command -v gnuplot >/dev/null || {
  echo "plots_rcr.sh: no gnuplot (apt-get install gnuplot-nox)" >&2
  exit 2
}
cd "$root"
if [ -z "$dat" ]; then
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DMBDC_BENCH=OFF >/dev/null
  cmake --build "$build" -j2 --target mbdc loop_family >/dev/null
  dat=$root/bench/loop_family.dat
  bash bench/loop_family.sh "$build" "$dat"
fi
[ -f "$dat" ] || { echo "plots_rcr.sh: no $dat" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One file per family: n+m fd_ops rcr_ops K (the .dat's columns: family K nv m dof fd_mul fd_add
# fd_div fd_ops rcr_fn rcr_mul rcr_add rcr_div rcr_ops; comment lines start with #).
families="ladder tree shared hung"
for fam in $families; do
  awk -v f="$fam" '!/^#/ && $1 == f && $14 != "-" { print $3 + $4, $9, $14, $2 }' "$dat" \
    >"$tmp/$fam"
  [ -s "$tmp/$fam" ] || { echo "plots_rcr.sh: no p_rcr rows of $fam in $dat" >&2; exit 1; }
done

# fit FILE: "a b R^2 1-R^2" of the least-squares line rcr_ops = a (n + m) + b over every row
fit() {
  awk '{ x[NR] = $1; y[NR] = $3; sx += $1; sy += $3 }
       END { n = NR; mx = sx / n; my = sy / n
             for (i = 1; i <= n; i++) { sxx += (x[i] - mx)^2; sxy += (x[i] - mx) * (y[i] - my) }
             a = sxy / sxx; b = my - a * mx
             for (i = 1; i <= n; i++) {
               r = y[i] - (a * x[i] + b); ssr += r * r; sst += (y[i] - my)^2 }
             printf "%.6g %.6g %.10f %.3g\n", a, b, 1 - ssr / sst, ssr / sst }' "$1"
}
read -r la lb lr2 lq2 < <(fit "$tmp/ladder")
read -r ta tb tr2 tq2 < <(fit "$tmp/tree")
read -r sa sb sr2 sq2 < <(fit "$tmp/shared")
read -r ha hb hr2 hq2 < <(fit "$tmp/hung")

echo "p_rcr operation counts, least-squares fit ops = a (n + m) + b over every K (${dat#"$root"/})"
printf "%-7s %12s %12s %12s %10s\n" family a b R^2 1-R^2
printf "%-7s %12.2f %12.1f %12.8f %10.2e\n" ladder "$la" "$lb" "$lr2" "$lq2" \
  tree "$ta" "$tb" "$tr2" "$tq2" shared "$sa" "$sb" "$sr2" "$sq2" hung "$ha" "$hb" "$hr2" "$hq2"
echo
echo "p_rcr / fd_loops (operation counts)"
printf "%-7s %4s %5s %10s %10s %8s\n" family K n+m fd_ops rcr_ops rcr/fd
for fam in $families; do
  awk -v f="$fam" '{ printf "%-7s %4d %5d %10d %10d %8.3f\n", f, $4, $1, $2, $3, $3 / $2 }' \
    "$tmp/$fam"
done

gnuplot -e "ld='$tmp/ladder'; tr='$tmp/tree'; sh='$tmp/shared'; hu='$tmp/hung'" \
  -e "la=$la; lb=$lb; ta=$ta; tb=$tb; sa=$sa; sb=$sb; ha=$ha; hb=$hb" - <<'EOF'
set terminal pngcairo size 900,620 font ",10" noenhanced
set output "docs/loops_rcr_scaling.png"
set title "Constrained forward dynamics on bench/loop_family.c's planar closed-loop families " . \
          "(K = 1 ... 64): operation counts"
set logscale xy
set grid
set key top left
set xlabel "n + m (velocity coordinates + kept constraint rows)"
set ylabel "operations (mul + add + div + sqrt + trig)"
set format y "1e%T"
set xrange [4:512]
set samples 400
fl(x) = la * x + lb
ft(x) = ta * x + tb
fs(x) = sa * x + sb
fh(x) = ha * x + hb
fit_title(f, a, b) = sprintf("%s p_rcr fit: %.1f (n+m) %s %.0f", f, a, b < 0 ? "-" : "+", abs(b))
plot ld u 1:2 w lp lc 1 pt 7 ps 0.8 dt 1 t "ladder: p_fd_loops (Lagrange multipliers)", \
     tr u 1:2 w lp lc 2 pt 5 ps 0.8 dt 1 t "tree: p_fd_loops (Lagrange multipliers)", \
     sh u 1:2 w lp lc 4 pt 9 ps 0.8 dt 1 t "shared: p_fd_loops (Lagrange multipliers)", \
     hu u 1:2 w lp lc 7 pt 11 ps 0.8 dt 1 t "hung: p_fd_loops (Lagrange multipliers)", \
     ld u 1:3 w lp lc 1 pt 6 ps 1.0 dt 2 t "ladder: p_rcr = rcr_0 (coordinate reduction)", \
     tr u 1:3 w lp lc 2 pt 4 ps 1.0 dt 2 t "tree: p_rcr = rcr_0 (coordinate reduction)", \
     sh u 1:3 w lp lc 4 pt 8 ps 1.0 dt 2 t "shared: p_rcr = rcr_0 (coordinate reduction)", \
     hu u 1:3 w lp lc 7 pt 10 ps 1.0 dt 2 t "hung: p_rcr = rcr_0 + rcr_refine_0 (coordinate reduction)", \
     fl(x) w l lc rgb "gray40" dt 3 lw 1.5 t fit_title("ladder", la, lb), \
     ft(x) w l lc rgb "gray60" dt 4 lw 1.5 t fit_title("tree", ta, tb), \
     fs(x) w l lc rgb "gray20" dt 5 lw 1.5 t fit_title("shared", sa, sb), \
     fh(x) w l lc rgb "gray50" dt 6 lw 1.5 t fit_title("hung", ha, hb)
EOF
echo "wrote docs/loops_rcr_scaling.png"
