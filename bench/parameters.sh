#!/usr/bin/env bash
# Run-time inertial parameters (mbdc generate --parameters): what making bodies' inertial
# parameters the first argument pi of the functions costs, on the Panda (fingers fixed, as
# bench/peers.sh), Solo12 and romeo_small (floating bases). Each robot's rnea, crba and aba in
# three variants:
#   constant   no --parameters: every inertia a constant folded into the code;
#   one body   --parameters BODY, one payload-like body: the Panda's panda_hand (fixed to
#              panda_link7, merged into it), Solo12's HR_LOWER_LEG (the last body `mbdc check`
#              lists), romeo_small's r_wrist (the right wrist, r_gripper merged into it);
#   all        --parameters all: every body's ten numbers.
# For each: mul + add + div + sqrt + trig (`mbdc stats`), and callgrind instructions per call
# (exact) at the flags of bench/peers.sh (gcc -O3 -march=x86-64-v3 -ffp-contract=fast) over the
# 64 states of bench/peers_driver.c (-DPI_ARG: pi the model file's values, <p>_pi_model, read
# from another object file, so nothing of it is folded), with the ratios to the constant
# variant (the drivers' checksums checked equal to the constant code's, to 1e-9 relative). The
# issue's targets: one body at most 1.15 times the constant code's instructions,
# all at most 2 times.
# Printed as markdown; with COST_MD also written there, between the lines
#   <!-- parameters: bench/parameters.sh -->  and  <!-- /parameters -->  (appended when absent).
#
# usage: bash bench/parameters.sh MBDC [COST_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc, valgrind and
#   callgrind_annotate. romeo_small takes up to a minute per variant to compile at -O3.
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/parameters.sh MBDC [COST_MD]" "$@"
bench_need gcc valgrind callgrind_annotate
funcs="rnea crba aba"
one_target=1.15
all_target=2

# robot, model, mbdc flags ("-" for none), the one parametric body
robots="panda $(bench_panda_fixed "$tmp") - panda_hand
solo12 $root/examples/urdf/solo12.urdf --floating-base HR_LOWER_LEG
romeo_small $root/examples/urdf/romeo_small.urdf --floating-base r_wrist"

# ops ROBOT VARIANT MODEL FLAGS [--parameters LIST]: "ops ROBOT VARIANT FUNC N" lines, N the
# function's mul + add + div + sqrt + trig
ops() {
  local robot=$1 variant=$2 model=$3 flags=$4
  shift 4
  local args=("$model" -q --functions "${funcs// /,}" --json "$@") json f n
  [ "$flags" = "-" ] || args+=("$flags")
  json=$("$mbdc" stats "${args[@]}") || bench_die 1 "mbdc stats failed ($robot, $variant)"
  for f in $funcs; do
    n=$(grep -o "\"$f\": {\"mul\": [0-9]*, \"add\": [0-9]*, \"div\": [0-9]*, \"sqrt\": [0-9]*, \"trig\": [0-9]*" <<<"$json" |
      sed 's/[":{},]/ /g' | awk '{ print $3 + $5 + $7 + $9 + $11 }')
    [ -n "$n" ] || bench_die 1 "no count of $f ($robot, $variant)"
    echo "ops $robot $variant $f $n"
  done
}

: >"$tmp/data.txt"
while read -r robot model flags body; do
  for variant in constant one all; do
    d=$tmp/$robot/$variant
    par=()
    case $variant in
      one) par=(--parameters "$body") ;;
      all) par=(--parameters all) ;;
    esac
    echo "== $robot, $variant${par[*]:+ (${par[*]})}: stats, generate, compile, callgrind" >&2
    ops "$robot" "$variant" "$model" "$flags" "${par[@]}" >>"$tmp/data.txt"
    p=$(bench_generate "$d/gen" "$model" "$flags" --functions "${funcs// /,}" "${par[@]}")
    hdr=$d/gen/${p}_dynamics.h
    # which of the functions take pi: all three or none (the driver passes it to all or none)
    takes=0
    for f in $funcs; do
      grep -q "^[a-z]* ${p}_$f(const double pi\[" "$hdr" && takes=$((takes + 1))
    done
    defs=()
    if [ "$variant" = constant ]; then
      [ "$takes" = 0 ] || bench_die 1 "$robot: the constant variant's functions take pi ($hdr)"
    else
      [ "$takes" = 3 ] || bench_die 1 "$robot, $variant: $takes of rnea, crba, aba take pi, not 3 ($hdr)"
      npi=$(awk -v n="$(echo "$p" | tr '[:lower:]' '[:upper:]')_NPI" '$1 == "#define" && $2 == n { print $3 }' "$hdr")
      echo "npi $robot $variant $npi" >>"$tmp/data.txt"
      defs+=(-DPI_ARG)
    fi
    bench_driver "$d/gen" "$d/driver" "${defs[@]}"
    bench_callgrind_driver "$d"
    echo "   $(cat "$d/driver.txt")" >&2
    # pi the model file's values: the same dynamics as the constant code's, to rounding
    sum=$(awk '$1 == "checksum" { sub(/,$/, "", $2); print $2 }' "$d/driver.txt")
    [ "$variant" = constant ] && sum0=$sum
    awk -v a="$sum" -v b="$sum0" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
      exit !(a != "" && d <= 1e-9 * (m > 1 ? m : 1)) }' ||
      bench_die 1 "$robot, $variant: checksum $sum, the constant code's $sum0"
    for f in $funcs; do
      echo "instr $robot $variant $f $(bench_per_call "$d" "$f")" >>"$tmp/data.txt"
    done
  done
  echo "body $robot $body" >>"$tmp/data.txt"
done <<<"$robots"

table() {
  echo "| robot | function | pi | mul + add + div + sqrt + trig | instructions per call | ÷ constant |"
  echo "|---|---|---|---|---|---|"
  awk -v one="$one_target" -v all="$all_target" '
    $1 == "ops" { ops[$2, $3, $4] = $5 }
    $1 == "instr" { ins[$2, $3, $4] = $5 }
    $1 == "npi" { npi[$2, $3] = $4 }
    $1 == "body" { body[$2] = $3; order[++n] = $2 }
    END {
      split("rnea crba aba", fs, " "); split("constant one all", vs, " ")
      for (i = 1; i <= n; i++) {
        r = order[i]
        for (k = 1; k <= 3; k++) {
          f = fs[k]
          for (j = 1; j <= 3; j++) {
            v = vs[j]
            if (v == "constant") { label = "constant"; ratio = "1.00" }
            else {
              label = (v == "one" ? "`" body[r] "`" : "`all`") " (" npi[r, v] ")"
              x = ins[r, v, f] / ins[r, "constant", f]; t = v == "one" ? one : all
              ratio = sprintf("%.2f", x)
              if (x > t + 0) ratio = "**" ratio "** ✗ (above " t ")"
            }
            printf "| %s | %s | %s | %s | %s | %s |\n", r, f, label, ops[r, v, f], ins[r, v, f], ratio
          }
        }
      }
    }' "$tmp/data.txt"
}

section() {
  echo "<!-- parameters: bench/parameters.sh -->"
  echo "## Run-time parameters"
  echo
  echo "What \`mbdc generate --parameters\` costs: the named bodies' inertial parameters made the"
  echo "first argument \`pi\` of \`rnea\`, \`crba\` and \`aba\` instead of constants folded into the"
  echo "code. Each robot in three variants: constant (no \`--parameters\`), one body (a payload-like"
  echo "body: the Panda's \`panda_hand\`, fixed to \`panda_link7\` and merged into it; Solo12's"
  echo "\`HR_LOWER_LEG\`, the last body \`mbdc check\` lists; romeo_small's \`r_wrist\`, the right"
  echo "wrist with \`r_gripper\` merged into it) and \`--parameters all\`; the pi column gives how"
  echo "many numbers pi holds. The code compiled with gcc at \`$bench_cflags_gen\`,"
  echo "counted by callgrind over $bench_states random states (\`bench/parameters.sh\`: each function"
  echo "called once per state inside its own noinline loop in \`bench/peers_driver.c\`, built with"
  echo "\`-DPI_ARG\` to pass the model file's values \`<p>_pi_model\`, an array of another object"
  echo "file, so nothing of pi is folded; the outputs' checksum checked equal to the constant"
  echo "code's to 1e-9); operations from \`mbdc stats\`. The Panda is"
  echo "\`examples/urdf/panda.urdf\` with its two prismatic finger joints made fixed (7 joints);"
  echo "Solo12 and romeo_small have a floating base (\`--floating-base\`). The issue's targets: one"
  echo "parametric body at most $one_target times the constant code's instructions, every body at"
  echo "most $all_target times; above a target a ratio is **bold** and marked ✗."
  echo
  table
  echo
  echo "Where the extra work comes from, in the generated code: a parametric body's inertia is no"
  echo "longer a constant with its zero products and centre-of-mass components folded away, so every"
  echo "product with it is computed (\`all\` on the floating bases, whose URDF inertias are mostly"
  echo "diagonal); a body fixed to a moving one (the Panda's \`panda_hand\`) keeps its ten numbers in"
  echo "its own frame, rotated and shifted into its moving body's frame at every call (naming"
  echo "\`panda_link7\`, the merged body, instead costs nothing of that); and \`aba\` computes the"
  echo "pivot rule's inertia scales of the parametric bodies' ancestors (a chain of square roots)"
  echo "that the constant code folds."
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bash bench/parameters.sh $mbdc${md:+ $md}\` |"
  echo "| date | $(date -u +%Y-%m-%d) |"
  echo "| CPU | $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1'), $(nproc) cores ($(uname -sr)) |"
  echo "| compiler | $(gcc --version | head -1) |"
  echo "| instructions | $(valgrind --version) --tool=callgrind |"
  echo "<!-- /parameters -->"
}

section >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
