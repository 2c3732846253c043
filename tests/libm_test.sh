#!/usr/bin/env bash
# libm_test.sh NM LIBRARY SOURCE SANITIZED — the generated functions as the build compiled them
# (tests/matrix.txt, check `libm`): LIBRARY, the static library of <p>_dynamics.c that
# mbdc_add_model built with -std=c99 -Wall -Wextra -Werror -pedantic -Wvla (so it compiles
# cleanly: the build would have stopped otherwise), calls no function but libm's, defines no
# writable data, and SOURCE declares no static data but const tables. SANITIZED=1: the build has
# -fsanitize=address,undefined, whose runtime calls are allowed besides, and writable data is
# not checked.
set -euo pipefail
nm=$1 lib=$2 src=$3 sanitized=${4:-0}
name=$(basename "$src")
# GCC merges sin and cos of one argument into glibc's sincos when optimizing; fmax: the joints'
# smoothed Coulomb sign (joint_regressor).
allowed=" sin cos sqrt atan2 fmax sinf cosf sqrtf atan2f fmaxf sincos sincosf "
failed=0
for sym in $("$nm" -u "$lib" | awk 'NF { print $NF }' | grep -v ':$' | sort -u); do
  case $allowed in *" $sym "*) continue ;; esac
  if [ "$sanitized" = 1 ]; then
    case $sym in __asan_* | __ubsan_* | __sanitizer_* | _GLOBAL_OFFSET_TABLE_) continue ;; esac
  fi
  echo "FAIL: $name calls '$sym': generated code may use libm only"
  failed=1
done
# Defined symbols in writable sections (.data, .bss, common); .data.rel.ro is read-only. Not in a
# sanitizer build, whose instrumentation adds writable data of its own (ASan's ODR indicators,
# clang's UBSan source locations in unnamed .data): the normal build checks every row.
if [ "$sanitized" != 1 ]; then
  "$nm" -f sysv --defined-only "$lib" | awk -F'|' -v f="$name" '
    NF >= 7 {
      sym = $1; sec = $7; gsub(/[ \t]/, "", sym); gsub(/[ \t]/, "", sec)
      if (sec ~ /^\*COM\*$|^\.(data|bss|tdata|tbss)($|\.)/ && sec !~ /^\.data\.rel\.ro/) {
        print "FAIL: " f " defines writable data: " sym " in " sec; bad = 1
      }
    }
    END { exit bad }' || failed=1
fi
# No static data but const tables (static functions would be fine).
if grep -nE '(^|[^A-Za-z0-9_])static[[:space:]]' "$src" |
     grep -vE 'static[[:space:]]+const[^A-Za-z0-9_]' |
     grep -vE 'static[[:space:]]+([A-Za-z_][A-Za-z0-9_]*[[:space:]*]+)+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\('; then
  echo "FAIL: $name declares static non-const data (above)"
  failed=1
fi
[ $failed -eq 0 ] || exit 1
if [ "$sanitized" = 1 ]; then
  echo "ok: $name: libm only (writable data: the normal build checks it)"
else
  echo "ok: $name: libm only, no writable data"
fi
