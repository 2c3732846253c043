#!/usr/bin/env bash
# Operation counts of the generated forward dynamics of chains of flexible bodies against Jain &
# Rodriguez, "Recursive Dynamics for Flexible Multibody Systems Using Spatial Operators" (JPL
# Publication 90-26, 1990): their Table 1 (articulated-body forward dynamics, N bodies of n_m
# modes, 1-dof rotary hinges) against our `aba`, and their §8.1 composite-body formulas against our
# `crba_fd` (docs/flexible.md, "Operation counts").
#
# usage: bash bench/flex_ops.sh MBDC [MARKDOWN]
#   MBDC: the mbdc executable. The chains are bench/flex_chain.sh's (N = 3, 6, 9; n_m = 5, 10, 15;
#   also N = 1 for the lone body). With MARKDOWN (e.g. docs/flexible.md), the tables replace what
#   is between the lines "<!-- flex-ops: bench/flex_ops.sh -->" and "<!-- /flex-ops -->" there;
#   without, they go to standard output.
# Counts: `mbdc stats` (sub counted as add; mul excludes div, which is shown apart and added to mul
# in the ratios: the paper's "products" include its divisions).
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_start "usage: bash bench/flex_ops.sh MBDC [MARKDOWN]" 1 2 "$@"
mbdc=$1
md=${2:-}
here=$root/bench

# counts: "N NM FUNC MUL ADD DIV" per line
for n in 1 3 6 9; do
  for nm in 5 10 15; do
    bash "$here/flex_chain.sh" "$n" "$nm" >"$tmp/c.mbd"
    "$mbdc" stats "$tmp/c.mbd" --functions aba,crba_fd 2>/dev/null |
      awk -v n="$n" -v nm="$nm" '$1 == "aba" || $1 == "crba_fd" { print n, nm, $1, $2, $3, $4 }'
  done
done >"$tmp/counts.txt"
bash "$here/flex_chain.sh" 6 5 1 >"$tmp/d.mbd"
"$mbdc" stats "$tmp/d.mbd" --functions aba 2>/dev/null | awk '$1 == "aba" { print "damped", $2, $3 }' \
  >>"$tmp/counts.txt"

tables() {
  awk '
  # Jain & Rodriguez 1990, Table 1: products, additions for N = 3, 6, 9 and n_m = 5, 10, 15
  # (N = 9, n_m = 5: printed 19591, a misprint for 19959; see the notes)
  BEGIN {
    split("5223 11432 18587 12591 27611 44846 19959 43790 71105", pm)
    split("4195 9677 16287 10075 23315 39225 15955 36953 62163", pa)
    for (i = 0; i < 3; i++) for (j = 0; j < 3; j++) {
      PM[3 * (i + 1), 5 * (j + 1)] = pm[3 * i + j + 1]; PA[3 * (i + 1), 5 * (j + 1)] = pa[3 * i + j + 1]
    }
  }
  { c[$1, $2, $3, "m"] = $4; c[$1, $2, $3, "a"] = $5; c[$1, $2, $3, "d"] = $6 }
  $1 == "damped" { dm = $2; da = $3 }
  # §8.2 per body: articulated quantities (7.10), explicit inversion for n <= 7, indirect above
  function art_m(n) { return n <= 7 ? 5 * n^3 / 6 + 25 * n^2 / 2 + 764 * n / 3 + 180 : 12 * n^2 + 255 * n + 572 }
  function art_a(n) { return n <= 7 ? 5 * n^3 / 6 + 21 * n^2 / 2 + 548 * n / 3 + 164 : 13 * n^2 + 182 * n + 445 }
  function sweep_m(n) { return art_m(n) + n^2 + 25 * n + 49 + 18 * n + 52 }
  function sweep_a(n) { return art_a(n) + n^2 + 24 * n + 50 + 19 * n + 42 }
  # §8.1 composite-body totals, dofs D = N (n_m + 1)
  function cb_m(N, n, D) {
    return N * (48 * n + 90) + N * (N + 1) / 2 * (12 * n^2 + 34 * n + 13) + N * (2 * n^2 + 54 * n + 206) \
      + D^3 / 6 + 3 * D^2 / 2 - 2 * D / 3
  }
  function cb_a(N, n, D) {
    return N * (n^2 + 97 * n / 2 + 116) + N * (N + 1) / 2 * (11 * n^2 + 24 * n + 13) \
      + N * (2 * n^2 + 50 * n + 143) + D + D^3 / 6 + D^2 - 7 * D / 6
  }
  function prod(N, n, f) { return c[N, n, f, "m"] + c[N, n, f, "d"] }
  END {
    print "### Articulated-body forward dynamics: our `aba` against Table 1"
    print ""
    print "| N | n_m | dofs | ours mul + div | ours add | Table 1 products | Table 1 additions | ours ÷ paper (products) | ours ÷ paper (additions) |"
    print "|---|---|---|---|---|---|---|---|---|"
    for (N = 3; N <= 9; N += 3) for (n = 5; n <= 15; n += 5)
      printf "| %d | %d | %d | %d + %d | %d | %d%s | %d | %.2f | %.2f |\n", N, n, N * (n + 1),
        c[N, n, "aba", "m"], c[N, n, "aba", "d"], c[N, n, "aba", "a"], PM[N, n],
        (N == 9 && n == 5) ? " (printed 19591)" : "", PA[N, n], prod(N, n, "aba") / PM[N, n],
        c[N, n, "aba", "a"] / PA[N, n]
    print ""
    print "Per body (the slope in N: a body in the middle of the chain), products / additions:"
    print ""
    print "| n_m | ours, N = 3 → 6 | ours, N = 6 → 9 | Table 1, N = 3 → 6 | Table 1, N = 6 → 9 | §8.2 (7.10) + (7.11) + (7.12) | ours ÷ Table 1 |"
    print "|---|---|---|---|---|---|---|"
    for (n = 5; n <= 15; n += 5) {
      o1m = (prod(6, n, "aba") - prod(3, n, "aba")) / 3; o2m = (prod(9, n, "aba") - prod(6, n, "aba")) / 3
      o1a = (c[6, n, "aba", "a"] - c[3, n, "aba", "a"]) / 3; o2a = (c[9, n, "aba", "a"] - c[6, n, "aba", "a"]) / 3
      p1m = (PM[6, n] - PM[3, n]) / 3; p2m = (PM[9, n] - PM[6, n]) / 3
      p1a = (PA[6, n] - PA[3, n]) / 3; p2a = (PA[9, n] - PA[6, n]) / 3
      printf "| %d | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.2f / %.2f |\n",
        n, o1m, o1a, o2m, o2a, p1m, p1a, p2m, p2a, sweep_m(n), sweep_a(n), o2m / p2m, o2a / p2a
    }
    print ""
    print "The ends of the chain (products): the chain costs N × slope + intercept; a lone body (N = 1)"
    print "is base and tip at once."
    print ""
    print "| n_m | ours: intercept | Table 1: intercept | ours: N = 1 |"
    print "|---|---|---|---|"
    for (n = 5; n <= 15; n += 5) {
      om = (prod(9, n, "aba") - prod(3, n, "aba")) / 6; pmm = (PM[9, n] - PM[3, n]) / 6
      printf "| %d | %.0f | %.0f | %d |\n", n, prod(3, n, "aba") - 3 * om, PM[3, n] - 3 * pmm, prod(1, n, "aba")
    }
    print ""
    printf "Damping (`bench/flex_chain.sh 6 5 1`, a dense D): `aba` %d mul, %d add for N = 6, n_m = 5, against %d, %d without: %.0f and %.0f per body.\n",
      dm, da, c[6, 5, "aba", "m"], c[6, 5, "aba", "a"], (dm - c[6, 5, "aba", "m"]) / 6, (da - c[6, 5, "aba", "a"]) / 6
    print ""
    print "### Forward dynamics by the mass matrix: our `crba_fd` against §8.1"
    print ""
    print "| N | n_m | dofs | ours mul + div | ours add | §8.1 products | §8.1 additions | ours ÷ §8.1 (products) | ours ÷ §8.1 (additions) |"
    print "|---|---|---|---|---|---|---|---|---|"
    for (N = 3; N <= 9; N += 3) for (n = 5; n <= 15; n += 5) {
      D = N * (n + 1)
      printf "| %d | %d | %d | %d + %d | %d | %.0f | %.0f | %.2f | %.2f |\n", N, n, D,
        c[N, n, "crba_fd", "m"], c[N, n, "crba_fd", "d"], c[N, n, "crba_fd", "a"], cb_m(N, n, D),
        cb_a(N, n, D), prod(N, n, "crba_fd") / cb_m(N, n, D), c[N, n, "crba_fd", "a"] / cb_a(N, n, D)
    }
  }' "$tmp/counts.txt"
}

if [ -z "$md" ]; then
  tables
  exit 0
fi
{ echo "<!-- flex-ops: bench/flex_ops.sh -->"; tables; echo "<!-- /flex-ops -->"; } >"$tmp/section.md"
bench_md_write "$md" "$tmp/section.md" existing || exit 2
