#!/usr/bin/env bash
# Property test of the emitted C: random models with hostile names (tests/hostile_model.c: every
# character a name may hold, 63-character names and prefixes, names of libm, libc and their
# macros, of the generated files' parameters, locals, macros and harness helpers, C++ and C23
# keywords) are generated, compiled with -std=c99 -Wall -Wextra -Werror -pedantic and their
# harness run (every generated function against the runtime). A failing model is printed. With
# more models than ctest runs, a failure can also be numerical and not about names: the
# harness's relative error of an output that is nearly zero (MBDC_PROPERTY_SEED=7, model 70: one
# helical joint, qdd off by 1.8e-15 absolute, 2e-10 relative; the same with plain names).
# usage: names_property_test.sh MBDC HOSTILE_MODEL SOURCE_DIR [CC]
#   MBDC_PROPERTY_MODELS=N (default 5) models from MBDC_PROPERTY_SEED (default 20261124)
set -u
mbdc=$1 gen=$2 src=$3 cc=${4:-cc}
n=${MBDC_PROPERTY_MODELS:-5} seed=${MBDC_PROPERTY_SEED:-20261124}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the runtime for the harnesses, built here with CC (the build's own may be instrumented)
mkdir -p "$tmp/rt" && for f in "$src"/runtime/*.c; do
  "$cc" -std=c99 -O1 -c "$f" -o "$tmp/rt/$(basename "$f" .c).o" || exit 1
done && ar rcs "$tmp/librt.a" "$tmp"/rt/*.o || exit 1
rtlib=$tmp/librt.a
pass=0 fail=0
for i in $(seq 1 "$n"); do
  m=$tmp/m$i.mbd out=$tmp/out$i
  opts=$("$gen" "$seed" "$i" "$m") || { echo "FAIL: model $i: hostile_model failed"; fail=$((fail + 1)); continue; }
  # shellcheck disable=SC2086 # opts is "--prefix NAME" or empty, NAME an identifier
  if ! "$mbdc" generate "$m" $opts -o "$out" >"$tmp/gen.out" 2>"$tmp/gen.err"; then
    what="mbdc generate $opts"
  elif ! "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -O0 -I"$src/runtime" -I"$out" "$out"/*.c \
         "$rtlib" -lm -o "$tmp/check" 2>"$tmp/gen.err"; then
    what="the generated files do not compile strictly"
  elif ! "$tmp/check" >"$tmp/gen.out" 2>&1 || ! grep -q ': ok: ' "$tmp/gen.out"; then
    what="the harness fails"
  else
    pass=$((pass + 1))
    rm -rf "$out"
    continue
  fi
  fail=$((fail + 1))
  echo "FAIL: model $i of seed $seed: $what"
  sed 's/^/  | /' "$tmp/gen.err" "$tmp/gen.out" | head -30
  echo "  the model ($opts):"
  sed 's/^/  > /' "$m"
done
echo "names property: $pass of $n models pass (seed $seed)"
[ "$fail" -eq 0 ]
