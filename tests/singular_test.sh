#!/usr/bin/env bash
# `mbdc check`, `mbdc generate` and `mbdc stats` agree on the degenerate models of tests/singular/
# (mass matrices singular in every configuration: a point mass on a joint's axis, a rod turning
# about itself, coaxial or parallel joints with a massless link, a point mass carried by more
# joints than it has directions, fixed-joint merges, flexible bodies and loops generated as their
# rigid tree, a flexible body whose modes are alike or whose modal data overflow; and models
# accepted although singular somewhere): the three accept or refuse
# together (accepted exactly when the file name ends in _accepted), print the same diagnostics
# byte for byte when they refuse (a located error at the joint and a note), and no output of any
# command contains a Lua traceback. A pivot a recipe finds singular although the checks passed is
# an internal error, also without a traceback.
# usage: singular_test.sh MBDC SOURCE_DIR
set -u
mbdc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

no_traceback() { # no_traceback WHAT FILE...
  local what=$1
  shift
  if grep -qi "traceback" "$@"; then
    bad "$what: a traceback in the output"
    sed 's/^/  | /' "$@" | head -20
  fi
}

for model in "$src"/tests/singular/*.mbd; do
  name=$(basename "$model" .mbd)
  (cd "$(dirname "$model")" && "$mbdc" check "$name.mbd") >"$tmp/check.out" 2>"$tmp/check.err"
  rc_check=$?
  (cd "$(dirname "$model")" && "$mbdc" generate "$name.mbd" -o "$tmp/gen") >"$tmp/gen.out" \
    2>"$tmp/gen.err"
  rc_gen=$?
  (cd "$(dirname "$model")" && "$mbdc" stats "$name.mbd") >"$tmp/stats.out" 2>"$tmp/stats.err"
  rc_stats=$?
  (cd "$(dirname "$model")" && "$mbdc" generate "$name.mbd" --functions aba,crba_fd,minv \
    -o "$tmp/gen2") >/dev/null 2>"$tmp/gen2.err"
  rc_gen2=$?
  rm -rf "$tmp/gen" "$tmp/gen2"
  no_traceback "$name" "$tmp"/*.out "$tmp"/*.err
  case $name in
  *_accepted) want=0 ;;
  *) want=1 ;;
  esac
  if [ "$rc_check" -ne "$want" ] || [ "$rc_gen" -ne "$want" ] || [ "$rc_stats" -ne "$want" ] ||
    [ "$rc_gen2" -ne "$want" ]; then
    bad "$name: exit statuses check $rc_check, generate $rc_gen, stats $rc_stats," \
      "generate --functions $rc_gen2; expected $want"
    sed 's/^/  | /' "$tmp/gen.err" | head -20
    continue
  fi
  if [ "$want" -eq 1 ]; then
    for other in gen stats gen2; do
      cmp -s "$tmp/check.err" "$tmp/$other.err" ||
        { bad "$name: check and $other print different diagnostics"; diff "$tmp/check.err" "$tmp/$other.err"; }
    done
    case $name in
    flexible_modes_*) # the modal data of a flexible body: located at the body
      grep -q "^$name.mbd:[0-9]*:[0-9]*: error: the modal .* of flexible body '" "$tmp/check.err" ||
        bad "$name: no located error at the flexible body" ;;
    *)
      grep -q "^$name.mbd:[0-9]*:[0-9]*: error: joint '" "$tmp/check.err" ||
        bad "$name: no located error at a joint"
      grep -q "^$name.mbd:[0-9]*:[0-9]*: note: " "$tmp/check.err" || bad "$name: no note" ;;
    esac
  fi
  pass=$((pass + 1))
done

# cfa on request for a model without inverse inertias: a plain error, no traceback
(cd "$src/tests/singular" && "$mbdc" generate two_link_point_accepted.mbd --functions cfa \
  -o "$tmp/gen") >"$tmp/cfa.out" 2>"$tmp/cfa.err"
[ $? -eq 1 ] || bad "generate --functions cfa of two_link_point: exit status"
grep -q "error: cannot generate cfa" "$tmp/cfa.err" || bad "generate --functions cfa: message"
no_traceback "generate --functions cfa" "$tmp/cfa.out" "$tmp/cfa.err"

# a recipe whose pivot is a constant that fails the rule: an internal error, no traceback
mkdir -p "$tmp/tpl/algorithms"
cat >"$tmp/tpl/algorithms/broken.lua" <<'EOF'
return {
  name = "broken", summary = "a pivot that is the constant 0", returns = "int",
  params = { { name = "q", role = "q" }, { name = "x", role = "out_nv" } },
  build = function(model)
    sym.pivot(0, 1, "joint 'nothing'")
    for k = 0, model.nv - 1 do sym.output("x", k, sym.input("q", 0)) end
  end,
}
EOF
"$mbdc" generate "$src/examples/cart_pole.mbd" --templates "$tmp/tpl" --functions broken \
  -o "$tmp/gen" >"$tmp/int.out" 2>"$tmp/int.err"
[ $? -eq 1 ] || bad "a recipe's singular constant pivot: exit status"
grep -q "^mbdc: internal error: broken: .*algorithms/broken.lua:5: the pivot of joint 'nothing' is the constant 0" \
  "$tmp/int.err" || { bad "a recipe's singular constant pivot: message"; cat "$tmp/int.err"; }
no_traceback "internal error" "$tmp/int.out" "$tmp/int.err"

# Long chains (bench/urdf_chain.sh): regular, but past a few thousand links the pivot rule's
# references (bounds of the noise in every configuration, growing as the cube of the length)
# reject their pivots in most states. `check` must say that, not "moves nothing" (it did, for
# 8000 links), and stay linear (16 000 links ran for more than 10 minutes, printing false errors).
bash "$src/bench/urdf_chain.sh" 4000 >"$tmp/chain4000.urdf"
"$mbdc" check -q "$tmp/chain4000.urdf" >/dev/null 2>"$tmp/c4.err" ||
  { bad "a 4000-link chain is refused"; head -5 "$tmp/c4.err"; }
for n in 8000 16000; do
  bash "$src/bench/urdf_chain.sh" $n >"$tmp/chain.urdf"
  start=$(date +%s)
  "$mbdc" check -q "$tmp/chain.urdf" >/dev/null 2>"$tmp/chain.err"
  rc=$? seconds=$(($(date +%s) - start))
  [ $rc -eq 1 ] || bad "a $n-link chain: exit status $rc"
  grep -q "moves nothing" "$tmp/chain.err" && bad "a $n-link chain called singular"
  msg="the pivot rule cannot tell the motion of joint 'joint[0-9]*' from rounding noise"
  grep -q "error: $msg: its articulated inertia is regular" "$tmp/chain.err" || { bad "a $n-link chain: message"; head -5 "$tmp/chain.err"; }
  [ "$(grep -c "error:" "$tmp/chain.err")" -eq 1 ] || bad "a $n-link chain: one error"
  [ $seconds -le 60 ] || bad "a $n-link chain took $seconds s to check"
done

echo "singular models: $pass agree, $fail failure(s)"
[ "$fail" -eq 0 ]
