#!/usr/bin/env bash
# Seeded random closed chains (tests/random_loops.c: planar chains closed by a revolute loop,
# spatial chains closed by a spherical loop, two coupled loops): each model is checked (its loops
# close near the neutral configuration), generated, compiled with the runtime, and its harness
# compares every generated function, the loop functions included, with the runtime on 200 closed
# states (reference: the runtime's mass-matrix solution; tolerance 1e-10 relative). The kinds planar,
# spatial and coupled; the headed kind (coupled branches behind a head of independent joints) is
# test_rcr_accuracy's: built with clang, its cfa wrenches reach 1.2e-10 here. -O0: the unrolled
# functions of a 14-dof model are megabytes, which -O1 takes half a minute to compile.
# usage: random_loops_test.sh MBDC RANDOM_LOOPS CC RUNTIME_INCLUDE RUNTIME_LIB [CFLAGS]
set -u
mbdc=$1 gen=$2 cc=$3 inc=$4 lib=$5 flags=${6:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for kind in planar spatial coupled; do
  for seed in 1 2 3 4; do
    name="${kind}_$seed"
    "$gen" "$seed" "$kind" >"$tmp/$name.mbd"
    if ! "$mbdc" check "$tmp/$name.mbd" >"$tmp/$name.check" 2>&1; then
      echo "FAIL: $name: mbdc check"; sed 's/^/  | /' "$tmp/$name.check" | head -20
      fail=$((fail + 1)); continue
    fi
    if ! "$mbdc" generate "$tmp/$name.mbd" -o "$tmp/$name" >/dev/null 2>"$tmp/$name.err"; then
      echo "FAIL: $name: mbdc generate"; cat "$tmp/$name.err"; fail=$((fail + 1)); continue
    fi
    # shellcheck disable=SC2086
    if ! "$cc" -std=c99 -O0 $flags -I"$inc" "$tmp/$name"/*.c "$lib" -lm -o "$tmp/$name/check" \
      2>"$tmp/$name.cc"; then
      echo "FAIL: $name: does not compile"; head -20 "$tmp/$name.cc"; fail=$((fail + 1)); continue
    fi
    if "$tmp/$name/check" >"$tmp/$name.out" 2>&1; then grep -E "rcr" "$tmp/$name.out" | sed "s/^/$name: /";
      pass=$((pass + 1))
      grep -E "rows,|mobility" "$tmp/$name.check" | sed "s/^/$name: /"
    else
      echo "FAIL: $name: harness"; cat "$tmp/$name.out"; cp "$tmp/$name.mbd" "/tmp/mbdc_$name.mbd"
      fail=$((fail + 1))
    fi
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
