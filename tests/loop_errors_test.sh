#!/usr/bin/env bash
# Loop joints that cannot be used (tests/loop_errors/): `mbdc check`, `generate` and `stats` refuse
# each model with exit status 1 and the same located diagnostics, byte for byte the golden
# NAME.err (a loop that cannot be closed near the initial configuration, with its residual there;
# two such loops, both reported; a loop between two parts of one rigid body; an `independent`
# statement whose dependent coordinates are singular at the assembled configuration, or too many
# for the rows: docs/loops.md "Recursive coordinate reduction"). A loop function
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
