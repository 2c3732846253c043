#!/usr/bin/env bash
# What rnea_derivatives' operations are made of (docs/derivatives.md, "What the cost is made
# of"), on the Panda (fingers fixed), Solo12 and romeo_small: `mbdc stats` (mul + add + div +
# sqrt + trig) of the recipe stopped after each of its stages, against the whole recipe and the
# generated rnea. A stage's variant is templates/lib/derivatives.lua patched (in a copy of
# the templates, passed with --templates) so that it skips the pair products and writes the
# per-dof vectors of the stages up to that one into the outputs instead (the recipe gets four more
# nv x nv output arrays to hold them all, one vector entry per output, nothing summed); what the
# vectors need is all that is left of the graph. Stages, in the recipe's order:
#   S      every body's pose in the world and its joint's columns S;
#   Psi    the world velocities and accelerations, and per dof Psi-dot, Psi-ddot and A;
#   u      the world inertias, their subtree sums IC, and u = IC S;
#   w      the matrices B, their subtree sums BC, and w = BC^T S;
#   PQ     the columns P and Q the ancestors' rows read (bodies below the root);
#   pairs  the dot products per pair of dofs: the whole recipe.
# Printed as markdown; with COST_MD also written there, between the lines
#   <!-- derivatives_cost: bench/derivatives_cost.sh -->  and  <!-- /derivatives_cost -->.
#
# usage: bash bench/derivatives_cost.sh MBDC [COST_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs perl.
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/derivatives_cost.sh MBDC [COST_MD]" "$@"
bench_need perl

robots=$(bench_derivative_robots "$tmp")
stages="S Psi u w PQ"

# the vectors each stage keeps (bodies with a parent; the root has no P, Q read by anyone)
vectors() {
  case $1 in
    S) echo "d.S" ;;
    Psi) echo "d.S, d.Pd, d.Pdd, d.A" ;;
    u) echo "u[c], d.S, d.Pd, d.Pdd, d.A" ;;
    w) echo "u[c], w[c], d.S, d.Pd, d.Pdd, d.A" ;;
    PQ) echo "u[c], w[c], P[c], Q[c], d.S, d.Pd, d.Pdd, d.A" ;;
  esac
}

# variant STAGE DIR: the templates with derivatives.lua stopped after STAGE
variant() {
  local stage=$1 dir=$2 f
  cp -r "$root/templates" "$dir"
  f=$dir/lib/derivatives.lua
  VEC="$(vectors "$stage")" ROOTVEC="$(vectors "$([ "$stage" = PQ ] && echo w || echo "$stage")")" \
    perl -0pi -e '
    my ($v, $r) = ($ENV{VEC}, $ENV{ROOTVEC});
    s/    local k = b\n    while k do/    for c = 1, b.nv do
      local d = dof[b.iv + c]
      for _, x in ipairs(b.parent > 0 and { $v } or { $r }) do
        for e = 1, 6 do
          if type(x[e]) ~= "number" then KEEP[#KEEP + 1] = x[e] end
        end
      end
    end
    local k = nil
    while k do/ or die "anchor 1";
    s/  local dq, dv, M = D.rnea\(model, inputs\("v", nv\), inputs\("a", nv\)\)\n.*?\n.*?\n.*?\n/  KEEP = {}
  D.rnea(model, inputs("v", nv), inputs("a", nv))
  local names = { "dtau_dq", "dtau_dv", "M", "k0", "k1", "k2", "k3" }
  assert(#KEEP <= #names * nv * nv, "too many vectors")
  for j = 1, #names * nv * nv do
    sym.output(names[(j - 1) \/\/ (nv * nv) + 1], (j - 1) % (nv * nv), KEEP[j] or 0)
  end
/s or die "anchor 2";
    s/(\{ name = "M", role = "out_nvnv" \}) \},(\n    build = build_rnea,)/$1, { name = "k0", role = "out_nvnv" }, { name = "k1", role = "out_nvnv" }, { name = "k2", role = "out_nvnv" }, { name = "k3", role = "out_nvnv" } },$2/ or die "anchor 3";
  ' "$f"
}

for s in $stages; do variant "$s" "$tmp/t_$s"; done

# ops MODEL FLAGS FUNCTION [TEMPLATES]: mul + add + div + sqrt + trig of FUNCTION
ops() {
  local model=$1 flags=$2 fn=$3 tpl=${4:-}
  local args=("$model" -q --functions "$fn" --json)
  [ "$flags" = "-" ] || args+=("$flags")
  [ -z "$tpl" ] || args+=(--templates "$tpl")
  local json n
  json=$("$mbdc" stats "${args[@]}") || bench_die 1 "mbdc stats failed ($model${tpl:+, $tpl})"
  n=$(grep -o "\"$fn\": {\"mul\": [0-9]*, \"add\": [0-9]*, \"div\": [0-9]*, \"sqrt\": [0-9]*, \"trig\": [0-9]*" <<<"$json" |
    sed 's/[":{},]/ /g' | awk '{ print $3 + $5 + $7 + $9 + $11 }')
  [ -n "$n" ] || bench_die 1 "no count of $fn ($model)"
  echo "$n"
}

sec=$tmp/section.md
{
  echo "<!-- derivatives_cost: bench/derivatives_cost.sh -->"
  echo "#### The cost by stage (bench/derivatives_cost.sh, $(date -u +%Y-%m-%d))"
  echo
  echo "\`bash bench/derivatives_cost.sh build/generator/mbdc docs/derivatives.md\`: mul + add + div +"
  echo "sqrt + trig of \`rnea_derivatives\` (\`mbdc stats\`) stopped after each stage, what each stage"
  echo "adds, and in brackets the running total as a multiple of the same robot's generated \`rnea\`."
  echo
  echo "| stage | panda | solo12 | romeo_small |"
  echo "|---|---|---|---|"
} >"$sec"
declare -A total rnea prev st
while read -r robot model flags; do
  echo "== $robot" >&2
  rnea[$robot]=$(ops "$model" "$flags" rnea)
  total[$robot]=$(ops "$model" "$flags" rnea_derivatives)
  prev[$robot]=0
  for s in $stages; do
    st[$robot,$s]=$(ops "$model" "$flags" rnea_derivatives "$tmp/t_$s")
  done
done <<<"$robots"

label() {
  case $1 in
    S) echo "world poses and joint columns S" ;;
    Psi) echo "world velocities and accelerations; per dof Ψ̇, Ψ̈, A" ;;
    u) echo "world inertias, their subtree sums IC; u = IC S" ;;
    w) echo "matrices B, their subtree sums BC; w = BCᵀ S" ;;
    PQ) echo "columns P and Q for the ancestors' rows" ;;
    pairs) echo "dot products per pair of dofs (the whole function)" ;;
  esac
}
for s in $stages pairs; do
  row="| $(label "$s") |"
  while read -r robot _; do
    if [ "$s" = pairs ]; then v=${total[$robot]}; else v=${st[$robot,$s]}; fi
    row="$row $((v - prev[$robot])) ($(awk -v a="$v" -v b="${rnea[$robot]}" 'BEGIN { printf "%.1f", a / b }')) |"
    prev[$robot]=$v
  done <<<"$robots"
  echo "$row" >>"$sec"
done
row="| generated \`rnea\` |"
while read -r robot _; do row="$row ${rnea[$robot]} |"; done <<<"$robots"
{ echo "$row"; echo "<!-- /derivatives_cost -->"; } >>"$sec"

bench_section "$sec" "$md"
