#!/usr/bin/env bash
# Loop joints that cannot be used (tests/loop_errors/): `mbdc check`, `generate` and `stats` refuse
# each model with exit status 1 and the same located diagnostics, byte for byte the golden
# NAME.err (a loop that cannot be closed near the initial configuration, with its residual there;
# two such loops, both reported; a loop between two parts of one rigid body; an `independent`
# statement whose dependent coordinates are singular at the assembled configuration, or too many
# for the rows, over all loops or over one independent part of them: docs/loops.md "Recursive
# coordinate reduction"; a loop that closes only at a
# singular configuration, where a row loses its gradient: a chain stretched out, a point at the
# lowest point of its sphere). A loop function
# asked of a model without loops is an error naming the function, without a traceback.
# usage: loop_errors_test.sh MBDC SOURCE_DIR
set -u
mbdc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

cd "$src/tests/loop_errors" || exit 1
for model in *.mbd; do
  name=${model%.mbd}
  "$mbdc" check "$model" >/dev/null 2>"$tmp/check.err"
  rc_check=$?
  "$mbdc" generate "$model" -o "$tmp/gen" >/dev/null 2>"$tmp/gen.err"
  rc_gen=$?
  "$mbdc" stats "$model" >/dev/null 2>"$tmp/stats.err"
  rc_stats=$?
  if [ "$rc_check" -ne 1 ] || [ "$rc_gen" -ne 1 ] || [ "$rc_stats" -ne 1 ]; then
    bad "$name: exit statuses check $rc_check, generate $rc_gen, stats $rc_stats; expected 1"
    continue
  fi
  [ -e "$tmp/gen" ] && bad "$name: generate wrote output for a refused model"
  for other in gen stats; do
    cmp -s "$tmp/check.err" "$tmp/$other.err" ||
      { bad "$name: check and $other print different diagnostics"; diff "$tmp/check.err" "$tmp/$other.err"; }
  done
  if cmp -s "$name.err" "$tmp/check.err"; then
    pass=$((pass + 1))
  else
    bad "$name: diagnostics differ from $name.err"
    diff "$name.err" "$tmp/check.err"
  fi
done

# fd_loops of a model without loops
"$mbdc" generate "$src/examples/double_pendulum.mbd" --functions rnea,fd_loops -o "$tmp/np" \
  >/dev/null 2>"$tmp/np.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "error: --functions fd_loops: fd_loops needs a model with loop joints" "$tmp/np.err" &&
  ! grep -qi traceback "$tmp/np.err" && [ ! -e "$tmp/np" ]; then
  pass=$((pass + 1))
else
  bad "fd_loops of a model without loops: exit $rc"
  cat "$tmp/np.err"
fi

# Many independent loops: the check works one independent part of the loops at a time, so its
# time and memory are linear in their number (1000 planar four-bars side by side: 0.3 s and 19 MB
# in a Release build, 3.6 s and 200 MB with the sanitizers; the time was cubic, 400 took 130 s,
# and until the selections of RCR were made part by part too the memory was quadratic, 850 MB)
# and the mobility is right. GNU time (Debian's `time`, scripts/setup.sh) measures the memory.
awk 'BEGIN {
  print "model bars;"
  for (k = 0; k < 1000; k++) {
    printf "body a%d { mass 1; com 0.5 0 0; inertia 0.01 0.1 0.1; }\n", k
    printf "body b%d { mass 1; com 0.5 0 0; inertia 0.01 0.1 0.1; }\n", k
    printf "body c%d { mass 1; com 0.5 0 0; inertia 0.01 0.1 0.1; }\n", k
    printf "joint ja%d revolute world -> a%d { origin xyz 0 0 %d; axis 0 0 1; }\n", k, k, k
    printf "joint jb%d revolute a%d -> b%d { origin xyz 1 0 0; axis 0 0 1; }\n", k, k, k
    printf "joint jc%d revolute b%d -> c%d { origin xyz 1 0 0; axis 0 0 1; }\n", k, k, k
    printf "loop l%d revolute c%d -> world { origin xyz 1 0 0; target xyz 0.5 0 %d;", k, k, k
    printf " axis 0 0 1; }\ninitial ja%d 1.2 velocity 0;\ninitial jb%d -1.9 velocity 0;\n", k, k
    printf "initial jc%d -1.6 velocity 0;\n", k
  }
}' >"$tmp/bars.mbd"
start=$(date +%s)
/usr/bin/time -f %M -o "$tmp/bars.kb" "$mbdc" check "$tmp/bars.mbd" >"$tmp/bars.out" 2>"$tmp/bars.err"
rc=$? seconds=$(($(date +%s) - start)) kb=$(tail -1 "$tmp/bars.kb")
mobility="3000 velocity coordinates - 2000 independent constraint rows = 1000 degrees of freedom"
if [ $rc -eq 0 ] && [ $seconds -le 120 ] && [ "$kb" -le 500000 ] &&
  grep -q "mobility: $mobility" "$tmp/bars.out"; then
  pass=$((pass + 1))
else
  bad "1000 independent four-bars: exit $rc after $seconds s, $kb kB at most"
  head -5 "$tmp/bars.err"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
