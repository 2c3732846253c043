#!/usr/bin/env bash
# The derivatives of contact-constrained forward dynamics (docs/derivatives.md, "Contact dynamics
# derivatives"): callgrind instructions per call of the generated contact_fd and
# contact_fd_derivatives, and of central differences of contact_fd (6 nv calls and 2 nv of
# integrate per state), at the flags of bench/peers.sh (gcc -O3 -march=x86-64-v3
# -ffp-contract=fast), over the 64 states of bench/contact_derivatives_driver.c, every contact
# active: Solo12 on its four feet (point contacts, floating base), the Panda (fingers fixed, as
# bench/peers.sh) with its hand welded, romeo_small (floating base) with both soles welded. Also
# `mbdc stats` of the derivative function (the epilogue counted at its most).
# Printed as markdown; with MD also written there, between the lines
#   <!-- contact_derivatives: bench/contact_derivatives.sh -->  and  <!-- /contact_derivatives -->
#
# usage: bash bench/contact_derivatives.sh MBDC [MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc, valgrind, callgrind_annotate.
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/contact_derivatives.sh MBDC [MD]" "$@"
bench_need gcc valgrind callgrind_annotate

robots=$(printf '%s\n' \
  "solo12 $root/examples/urdf/solo12.urdf --floating-base FL_FOOT,FR_FOOT,HL_FOOT,HR_FOOT" \
  "panda $(bench_panda_fixed "$tmp") - panda_hand_tcp:6" \
  "romeo_small $root/examples/urdf/romeo_small.urdf --floating-base l_sole:6,r_sole:6")
funcs="contact_fd contact_fd_derivatives fd_contact_fd"

: >"$tmp/data.txt"
while read -r robot model flags contacts; do
  d=$tmp/$robot
  mkdir -p "$d"
  echo "== $robot: generate, callgrind" >&2
  p=$(bench_generate "$d/gen" "$model" "$flags" --contacts "$contacts" \
    --functions contact_fd,contact_fd_derivatives,integrate)
  pu=$(echo "$p" | tr '[:lower:]' '[:upper:]')
  nv=$(awk -v n="${pu}_NV" '$1 == "#define" && $2 == n { print $3 }' "$d/gen/${p}_dynamics.h")
  nr=$(awk -v n="${pu}_NCROWS" '$1 == "#define" && $2 == n { print $3 }' "$d/gen/${p}_dynamics.h")
  echo "size $robot $nv $nr" >>"$tmp/data.txt"
  # shellcheck disable=SC2086 # the flags are words
  gcc $bench_cflags_gen -c "$d/gen/${p}_dynamics.c" -o "$d/dyn.o"
  # shellcheck disable=SC2086
  gcc $bench_cflags_drv -DHEADER="\"$d/gen/${p}_dynamics.h\"" -DPFX="$p" -DPFX_UP="$pu" \
    "$root/bench/contact_derivatives_driver.c" "$d/dyn.o" -lm -o "$d/driver"
  bench_callgrind_driver "$d"
  grep -q "^fails 0$" "$d/driver.txt" ||
    bench_die 1 "$robot: a call failed ($(cat "$d/driver.txt"))"
  for f in $funcs; do echo "instr $robot $f $(bench_per_call "$d" "$f")" >>"$tmp/data.txt"; done
done <<<"$robots"

sec=$tmp/section.md
{
  echo "<!-- contact_derivatives: bench/contact_derivatives.sh -->"
  echo "#### Contact dynamics derivatives (bench/contact_derivatives.sh, $(date +%Y-%m-%d))"
  echo
  echo "\`bash bench/contact_derivatives.sh build/generator/mbdc docs/derivatives.md\`: callgrind"
  echo "instructions per call (exact), $(gcc --version | head -n 1 | awk '{ print "gcc", $NF }')"
  echo "$bench_cflags_gen, 64 random states, every contact active."
  echo
  echo "| robot | nv | contact rows | contact_fd | contact_fd_derivatives | ratio | central differences of contact_fd | ratio |"
  echo "|---|---|---|---|---|---|---|---|"
  awk '$1 == "size" { nv[$2] = $3; nr[$2] = $4; order[++n] = $2 }
       $1 == "instr" { i[$2, $3] = $4 }
       END {
         for (k = 1; k <= n; k++) {
           r = order[k]; c = i[r, "contact_fd"]; d = i[r, "contact_fd_derivatives"]
           f = i[r, "fd_contact_fd"]
           printf "| %s | %s | %s | %s | %s | %.1f | %s | %.1f |\n",
             r, nv[r], nr[r], c, d, d / c, f, f / d
         }
       }' "$tmp/data.txt"
  echo "<!-- /contact_derivatives -->"
} >"$sec"
bench_section "$sec" "$md"
