#!/usr/bin/env bash
# header_test.sh MBDC CC SOURCE_DIR — <p>_dynamics.h as a user reads it, on models that between
# them get every function mbdc generates (the defaults, by name, loops, contacts, springs, nodes,
# --trig-input; double and float):
#   - every function `mbdc functions` lists is declared in a header with exactly the signature
#     listed (P the prefix: the table cannot drift from what the render templates write);
#   - every object the header declares (the name tables, the initial state, ...) is defined in
#     <p>_dynamics.c: a program that uses them all links against <p>_dynamics.c alone, and
#     together with <p>_model.c (nothing defined twice).
set -u
mbdc=$1 cc=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
ex=$src/examples

# gen DIR PREFIX MODEL [OPTIONS...]: generate into $tmp/DIR; the prefix and directory recorded
runs=()
gen() {
  local dir=$1 prefix=$2 model=$3
  shift 3
  if ! "$mbdc" generate "$model" -q --prefix "$prefix" -o "$tmp/$dir" "$@" 2>"$tmp/err"; then
    bad "mbdc generate $model $*"; sed 's/^/  | /' "$tmp/err" | head -20
    return
  fi
  runs+=("$dir:$prefix")
}
gen arm7 arm7 "$ex/arm7.mbd"
gen arm7_n arm7_n "$ex/arm7.mbd" --functions dynamics,aba_wrenches,rnea_derivatives,aba_derivatives,regressor,energy_regressor,base_regressor,base_params,joint_regressor
gen arm7_c arm7_c "$ex/arm7.mbd" --contacts tcp:6,link5
gen arm7_d arm7_d "$ex/arm7.mbd" --contacts tcp:6,link5 --functions rnea_ext_derivatives,aba_ext_derivatives,contact_fd_derivatives,contact_fd_reg_derivatives,impulse_derivatives,integrate_jacobians,difference_jacobians,frame_velocity_derivatives,frame_velocity_derivatives_local,frame_acceleration_derivatives,frame_acceleration_derivatives_local
gen five_bar five_bar "$ex/five_bar.mbd" --trig-input
gen five_bar_d five_bar_d "$ex/five_bar.mbd" --functions fd_loops_derivatives
gen five_bar_b five_bar_b "$ex/five_bar.mbd" --prescribed q2 \
  --functions fd_loops_baumgarte,fd_loops_hybrid,hybrid,hybrid_fixed,gravity_derivatives
gen spring spring "$ex/spring_pendulum.mbd"
gen nodal nodal "$ex/flexible_arm_nodal.mbd"
gen arm7_f arm7_f "$ex/arm7.mbd" --scalar float
gen five_bar_f five_bar_f "$ex/five_bar.mbd" --trig-input --scalar float

# 1. the signatures of `mbdc functions` (double; float for the float run), P replaced
"$mbdc" functions >"$tmp/functions" 2>"$tmp/err" || bad "mbdc functions: exit $?"
"$mbdc" functions --scalar float >"$tmp/functions_f" 2>"$tmp/err" ||
  bad "mbdc functions --scalar float: exit $?"
sigs() { sed -n 's/^    \(\(void\|int\) P_[a-z0-9_]*(.*);\)$/\1/p' "$1"; }
sigs "$tmp/functions" >"$tmp/sigs"
sigs "$tmp/functions_f" >"$tmp/sigs_f"
[ "$(wc -l <"$tmp/sigs")" -ge 40 ] && [ "$(wc -l <"$tmp/sigs_f")" -eq "$(wc -l <"$tmp/sigs")" ] ||
  bad "mbdc functions lists $(wc -l <"$tmp/sigs") signatures, $(wc -l <"$tmp/sigs_f") in float"
compared=0
# each signature in every header that declares the function (those of its scalar type); every
# double one in some header
while IFS= read -r sig; do
  name=$(sed 's/^[a-z]* P_\([a-z0-9_]*\)(.*/\1/' <<<"$sig")
  found=0
  grep -qxF "$sig" "$tmp/sigs" || found=1 # a float one: not every function has a float model
  for run in "${runs[@]}"; do
    dir=${run%%:*} p=${run#*:}
    list=$tmp/sigs
    case $dir in *_f) list=$tmp/sigs_f ;; esac
    grep -qxF "$sig" "$list" || continue # the other scalar type's
    P=$(tr a-z A-Z <<<"$p")
    want=$(sed "s/ P_$name(/ ${p}_$name(/; s/\bP_/${P}_/g" <<<"$sig")
    got=$(grep -E "^(void|int) ${p}_$name\(" "$tmp/$dir/${p}_dynamics.h")
    [ -n "$got" ] || continue
    found=1 compared=$((compared + 1))
    [ "$got" = "$want" ] ||
      bad "$dir: $name: the header declares"$'\n'"  $got"$'\n'"  mbdc functions says"$'\n'"  $want"
  done
  [ "$found" = 1 ] || bad "$name: no generated header declares it (the test's models miss it?)"
done < <(cat "$tmp/sigs" "$tmp/sigs_f")

# 2. the header's objects are defined in <p>_dynamics.c
for run in "${runs[@]}"; do
  dir=${run%%:*} p=${run#*:}
  h=$tmp/$dir/${p}_dynamics.h
  names=$(sed -n 's/^extern const .*[ *]\([A-Za-z_][A-Za-z0-9_]*\)\[.*\];$/\1/p' "$h")
  grep -q "${p}_q_initial" <<<"$names" || bad "$dir: the header declares no ${p}_q_initial"
  {
    echo "#include \"${p}_dynamics.h\""
    echo "int main(void) {"
    echo "  const void *used[] = {"
    for n in $names; do echo "    (const void *)$n,"; done
    echo "  };"
    echo "  return used[0] == 0 && ${p}_q_initial[0] == 12345.0;"
    echo "}"
  } >"$tmp/$dir/uses.c"
  if ! "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -I"$tmp/$dir" "$tmp/$dir/uses.c" \
       "$tmp/$dir/${p}_dynamics.c" -lm -o "$tmp/$dir/uses" 2>"$tmp/err"; then
    bad "$dir: a program using what ${p}_dynamics.h declares does not link against" \
        "${p}_dynamics.c alone:"$'\n'"$(head -20 "$tmp/err")"
  fi
  "$cc" -std=c99 -I"$tmp/$dir" -I"$src/runtime" -c "$tmp/$dir/${p}_model.c" \
    -o "$tmp/$dir/model.o" 2>"$tmp/err" || bad "$dir: ${p}_model.c does not compile"
  if ! "$cc" -std=c99 -I"$tmp/$dir" "$tmp/$dir/uses.c" "$tmp/$dir/${p}_dynamics.c" \
       "$tmp/$dir/model.o" -lm -o "$tmp/$dir/uses2" 2>"$tmp/err"; then
    bad "$dir: ${p}_dynamics.c and ${p}_model.c do not link together:"$'\n'"$(head -20 "$tmp/err")"
  fi
done

[ "$fail" -eq 0 ] && echo "header: ok (${#runs[@]} models, $compared declarations compared)" ||
  echo "header: $fail failure(s)"
exit $((fail > 0))
