#!/usr/bin/env bash
# Operation counts of the constrained forward dynamics on three families of planar closed-loop
# mechanisms (bench/loop_family.c), for the scaling of p_fd_loops (Lagrange multipliers,
# O(n + n_path m + m^3), docs/loops.md) against recursive coordinate reduction (O(n + m)):
#   ladder K  K four-bar loops in series, each hanging from the previous coupler: n = 3K, m = 2K
#   tree K    a spine of K links, a four-bar hanging from each: n = 4K, m = 2K
#   shared K  a spine of K links, two dyads from its end closing to the world and to the spine's
#             first link: two loops sharing K - 1 head joints, n = K + 4, m = 4
#   hung K    a four-bar and, from its coupler, a spine of K links with a dyad closing to its
#             crank: two loops sharing a joint that carries a dependent, the inner one hung from
#             the outer tail with the spine as its head: n = K + 5, m = 4
# For each family and K the model is written, checked (mbdc check: every loop keeps 2 rows, the
# mobility is K for the ladder, 2K for the tree, K = nv - 4 for shared, whose selection 0 must
# take the four dyad joints as dependent, and K + 1 for hung, whose selection 0 (its
# `independent`) must hang the inner loop at link_2 — the script fails otherwise) and counted
# (mbdc stats --json). The table, whitespace-separated, one row per model:
#   family K nv m dof  fd_mul fd_add fd_div fd_ops  rcr_fn rcr_mul rcr_add rcr_div rcr_ops
# fd_* are the counts of the generated fd_loops; ops = mul + add + div + sqrt + trig (sin/cos).
# rcr_* are p_rcr's on its common path: rcr_0 alone (the first selection's variant, which checks
# its own dependents' pivot ratios and returns 1 below the switch threshold; p_rcr calls
# rcr_pivots only when every selection is ill-conditioned); "-" when mbdc generates none. A
# selection with a hung loop is always refined once: there p_rcr's path is rcr_0 plus
# rcr_refine_0, and the rcr_* columns are their sums.
#
# usage: bash bench/loop_family.sh BUILD_DIR OUT.dat
#   BUILD_DIR has generator/mbdc and bench/loop_family built (make mbdc loop_family; loop_family
#   is built with -DMBDC_BENCH=OFF too).
# Environment: MBDC_LOOP_FAMILIES (default "ladder tree shared"), MBDC_LOOP_FAMILY_K (default
# "1 2 4 8 16 32 64"). The wall time of each mbdc stats goes to stderr (K = 64: some 6 s).
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_start "usage: bash bench/loop_family.sh BUILD_DIR OUT.dat" 2 2 "$@"
build=$1
out=$2
mbdc=$build/generator/mbdc
gen=$build/bench/loop_family
for exe in "$mbdc" "$gen"; do
  [ -x "$exe" ] || { echo "loop_family.sh: no $exe (make mbdc loop_family in $build)" >&2; exit 2; }
done
families=${MBDC_LOOP_FAMILIES:-ladder tree shared hung}
ks=${MBDC_LOOP_FAMILY_K:-1 2 4 8 16 32 64}

# ops FUNCTION STATS.json: "mul add div ops" of FUNCTION, or "- - - -"
ops() {
  local entry
  entry=$(grep -o "\"$1\": {[^}]*}" "$2" | head -n 1 || true)
  if [ -z "$entry" ]; then
    echo "- - - -"
    return
  fi
  echo "$entry" | awk '{
    for (i = 1; i <= NF; i++) { k = $i; gsub(/[^a-z]/, "", k); v = $(i + 1); gsub(/[^0-9]/, "", v)
      if (k == "mul" || k == "add" || k == "div" || k == "sqrt" || k == "trig") c[k] = v + 0 }
    printf "%d %d %d %d\n", c["mul"], c["add"], c["div"], c["mul"] + c["add"] + c["div"] + c["sqrt"] + c["trig"] }'
}

{
  echo "# bench/loop_family.sh: operation counts (mbdc stats) of the constrained forward dynamics"
  echo "# on bench/loop_family.c's planar closed-loop families; $("$mbdc" --version 2>/dev/null | head -n 1 || echo mbdc),"
  echo "# $(date -u +%Y-%m-%d). ladder K: K four-bars in series (n = 3K); tree K: a spine of K links"
  echo "# with a four-bar on each (n = 4K); shared K: a spine of K links, two dyads from its end"
  echo "# closing to the world and to its first link (two loops sharing K - 1 head joints,"
  echo "# n = K + 4, m = 4); hung K: a four-bar and a spine of K links with a dyad from its coupler"
  echo "# to its crank, the inner loop hung from the outer tail (n = K + 5, m = 4; p_rcr = rcr_0 +"
  echo "# rcr_refine_0, always refined). nv: velocity coordinates, m: kept constraint rows,"
  echo "# dof = nv - m. fd_*: the generated fd_loops (Lagrange multipliers); rcr_*: p_rcr"
  echo "# (recursive coordinate reduction) on its common path: rcr_0 alone, the first selection's"
  echo "# variant, which checks its own pivot ratios (rcr_pivots runs only when every selection is"
  echo "# ill-conditioned, and is not counted)."
  echo "# ops = mul + add + div + sqrt + trig (subtractions counted as add, mul excludes div)."
  echo "family K nv m dof fd_mul fd_add fd_div fd_ops rcr_fn rcr_mul rcr_add rcr_div rcr_ops"
  for fam in $families; do
    for k in $ks; do
      model=$tmp/${fam}_$k.mbd
      "$gen" "$fam" "$k" >"$model"
      if ! "$mbdc" check "$model" >"$tmp/check" 2>&1; then
        echo "loop_family.sh: mbdc check $fam $k failed:" >&2
        head -n 20 "$tmp/check" >&2
        exit 1
      fi
      nv=$(sed -n 's/^ *coordinates *nq = [0-9]*, nv = \([0-9]*\)$/\1/p' "$tmp/check")
      read -r m dof < <(sed -n 's/^ *mobility: [0-9]* velocity coordinates - \([0-9]*\) independent constraint rows = \([0-9]*\) degrees* of freedom$/\1 \2/p' "$tmp/check")
      case $fam in
        ladder) want_nv=$((3 * k)) want_m=$((2 * k)) want_dof=$k want_loops=$k ;;
        tree) want_nv=$((4 * k)) want_m=$((2 * k)) want_dof=$((2 * k)) want_loops=$k ;;
        shared) want_nv=$((k + 4)) want_m=4 want_dof=$k want_loops=2 ;;
        hung) want_nv=$((k + 5)) want_m=4 want_dof=$((k + 1)) want_loops=2 ;;
        *) echo "loop_family.sh: unknown family $fam" >&2; exit 2 ;;
      esac
      loops2=$(grep -c ': 5 rows, 2 independent, 3 redundant' "$tmp/check" || true)
      if [ "${nv:-}" != "$want_nv" ] || [ "${m:-}" != "$want_m" ] || [ "${dof:-}" != "$want_dof" ] ||
        [ "$loops2" != "$want_loops" ]; then
        echo "loop_family.sh: $fam $k: nv ${nv:-?} m ${m:-?} dof ${dof:-?}, $loops2 loops of 2 rows;" \
          "expected nv $want_nv m $want_m dof $want_dof, $want_loops loops of 2 rows" >&2
        exit 1
      fi
      # shared: rcr_0 must be the selection that keeps the shared head joints independent
      if [ "$fam" = shared ] &&
        ! grep -q '^ *0 (from the chains.* ends): j_outer_1 j_outer_2 j_inner_1 j_inner_2;' "$tmp/check"; then
        echo "loop_family.sh: shared $k: selection 0 is not the four dyad joints:" >&2
        grep '^ *0 (from' "$tmp/check" >&2 || true
        exit 1
      fi
      # hung: rcr_0 must be the model's `independent`, the inner loop hung at link_2
      if [ "$fam" = hung ] && ! sed -n '/^ *0 (the model/,/^ *1 (/p' "$tmp/check" |
        grep -q 'pin_inner; base link_1; hung from group 0 at link_2;'; then
        echo "loop_family.sh: hung $k: selection 0 does not hang the inner loop at link_2:" >&2
        sed -n '/^ *0 (the model/,/^ *1 (/p' "$tmp/check" >&2
        exit 1
      fi
      start=$(date +%s.%N)
      if ! "$mbdc" stats "$model" --json >"$tmp/stats.json" 2>"$tmp/stats.err"; then
        echo "loop_family.sh: mbdc stats $fam $k failed:" >&2
        cat "$tmp/stats.err" >&2
        exit 1
      fi
      secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
      # p_rcr's cost on its common path: the first selection's variant alone (it checks its own
      # pivot ratios; rcr_pivots is p_rcr's fallback when every selection is ill-conditioned)
      rcr_ops=$(ops rcr_0 "$tmp/stats.json")
      if [ "$fam" = hung ]; then # always refined: rcr_0 + rcr_refine_0
        rcr_ops=$(echo "$rcr_ops $(ops rcr_refine_0 "$tmp/stats.json")" |
          awk '{ print $1 + $5, $2 + $6, $3 + $7, $4 + $8 }')
      fi
      if [ "$rcr_ops" != "- - - -" ]; then rcr=p_rcr; else rcr=-; fi
      echo "$fam $k $nv $m $dof $(ops fd_loops "$tmp/stats.json") $rcr $rcr_ops"
      echo "loop_family.sh: $fam $k: nv $nv, m $m, dof $dof; mbdc stats ${secs} s" >&2
    done
  done
} >"$tmp/table"
# aligned columns; the column names as a comment
awk '/^#/ { print; next }
     { printf "%s%-6s %3s %4s %4s %4s %9s %9s %5s %9s %-8s %9s %9s %5s %9s\n", (seen++ ? "  " : "# "),
         $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 }' "$tmp/table" >"$tmp/aligned"
cp "$tmp/aligned" "$out"
echo "loop_family.sh: wrote $out" >&2
