#!/usr/bin/env bash
# Stack use of the generated functions: mbdc's estimate (`mbdc stats --json`: "live_bytes", the
# most values live at once in the emitted order times their size) against what the compiler
# allocates (gcc -fstack-usage, static frame size), for every model under generated/.
#
#   bash bench/stack_usage.sh [MBDC] [CFLAGS...]      (default: build/generator/mbdc, -O2)
#
# Prints one line per function (model, function, estimate, compiler, ratio) and the range of the
# ratio. docs/generator.md ("Stack") quotes the result.
set -euo pipefail
cd "$(dirname "$0")/.."
mbdc=${1:-build/generator/mbdc}
shift || true
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(-O2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
floating=$(grep -v '^#' examples/urdf/floating_base.txt)
printf '%-18s %-16s %9s %9s %6s\n' model function estimate compiler ratio
for dir in generated/*/ generated/urdf/*/; do
  src=$(ls "$dir"*_dynamics.c 2>/dev/null | head -1) || true
  [ -n "$src" ] || continue
  stem=$(basename "$dir")
  if [ -e "examples/$stem.mbd" ]; then model=examples/$stem.mbd fb=""
  elif [ -e "examples/urdf/$stem.urdf" ]; then
    model=examples/urdf/$stem.urdf fb=""
    grep -qx "$stem" <<<"$floating" && fb=--floating-base
  else continue; fi
  # shellcheck disable=SC2086
  "$mbdc" stats -q --json "$model" $fb >"$tmp/stats.json"
  (cd "$tmp" && gcc "${flags[@]}" -std=c99 -fstack-usage -c "$OLDPWD/$src" -o f.o -I"$OLDPWD/$dir")
  prefix=$(basename "$src" _dynamics.c)
  while IFS=$'\t' read -r where bytes _; do
    fn=${where##*:}
    name=${fn#"${prefix}_"}
    est=$(grep -o "\"$name\": {[^}]*}" "$tmp/stats.json" | grep -o '"live_bytes": [0-9]*' | grep -o '[0-9]*$') || continue
    [ "$est" -gt 0 ] || continue
    awk -v m="$stem" -v f="$name" -v e="$est" -v c="$bytes" \
      'BEGIN { printf "%-18s %-16s %9d %9d %6.2f\n", m, f, e, c, c / e }'
  done <"$tmp/f.su"
done | tee "$tmp/table"
awk 'NR > 0 && $3 >= 1024 { r = $5; if (!n++ || r < lo) lo = r; if (r > hi) hi = r }
     END { printf "functions with an estimate of 1 KiB or more: %d, compiler/estimate from %.2f to %.2f\n", n, lo, hi }' "$tmp/table"
