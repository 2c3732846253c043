#!/usr/bin/env bash
# A payload changed at run time (docs/parameters.md): tests/payload/payload_arm.mbd generated with
# its `parameters payload gravity;` statement, against the same model with each of three payloads
# and gravities written in as constants and generated again (tests/payload/payload_test.c
# compares rnea, crba and aba to 1e-12). The variants: a heavier payload off-centre, a light
# one with large products of inertia, and none at all (zero mass: the gripper empty), with
# gravity tilted.
# usage: payload_test.sh MBDC SOURCE_DIR
set -euo pipefail
mbdc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model=$src/tests/payload/payload_arm.mbd
grep -q '^parameters payload gravity;$' "$model"
"$mbdc" generate "$model" -q -o "$tmp/p"

# mass, com (3), inertia about the com (ixx iyy izz ixy ixz iyz), gravity (3)
variants=(
  "3.5   0.05 0.02 -0.04   0.01 0.012 0.008 0.001 -0.002 0.0005   0 0 -9.81"
  "0.3   -0.01 0.03 0.06   0.002 0.001 0.0025 -0.0008 0.0006 -0.0004   0.8 -0.3 -9.7"
  "0     0 0 0   0 0 0 0 0 0   -1.2 0.5 -9.7"
)
{
  echo "/* variants.h — written by tests/payload_test.sh */"
  for k in "${!variants[@]}"; do echo "#include \"c$k/c${k}_dynamics.h\""; done
  echo "#define NVARIANT ${#variants[@]}"
  echo "static const struct payload_variant {"
  echo "  double mass, com[3], inertia[6], gravity[3];"
  echo "  struct { rnea_fn *rnea; crba_fn *crba; aba_fn *aba; } fn;"
  echo "} variant_table[NVARIANT] = {"
} >"$tmp/variants.h"
for k in "${!variants[@]}"; do
  read -r m cx cy cz ixx iyy izz ixy ixz iyz gx gy gz <<<"${variants[$k]}"
  body="body payload { mass $m; com $cx $cy $cz; inertia $ixx $iyy $izz $ixy $ixz $iyz; }"
  sed -e "s/^body payload .*/$body/" \
      -e "s/^gravity .*/gravity $gx $gy $gz;/" -e '/^parameters /d' "$model" >"$tmp/c$k.mbd"
  "$mbdc" generate "$tmp/c$k.mbd" -q --prefix "c$k" --functions rnea,crba,aba -o "$tmp/c$k"
  echo "  {$m, {$cx, $cy, $cz}, {$ixx, $iyy, $izz, $ixy, $ixz, $iyz}, {$gx, $gy, $gz}," \
       "{c${k}_rnea, c${k}_crba, c${k}_aba}}," >>"$tmp/variants.h"
done
echo "};" >>"$tmp/variants.h"
cc -std=c99 -O1 -Wall -Wextra -Werror -pedantic -I"$tmp" -I"$tmp/p" \
  "$src/tests/payload/payload_test.c" "$tmp/p/payload_arm_dynamics.c" "$tmp"/c*/c*_dynamics.c \
  -lm -o "$tmp/payload_test"
"$tmp/payload_test"
