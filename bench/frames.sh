#!/usr/bin/env bash
# The reference frames of --frame side by side (docs/frames.md): where the recipes that have the
# choice express their velocities, forces and inertias — body-fixed at the joints (body), or
# world-aligned at the joints (joint), the centres of mass (com) or the world's origin (world).
#   1. operations (mul + add + div + sqrt + trig, `mbdc stats --frame all`) of rnea, crba and aba
#      (and fd_loops on the loop models) in every variant, for every example model and robot;
#   2. every function of those models for which auto generates another variant than body, and
#      what the re-expressed tree alone costs (bench/frames_tree/: every body's orientation,
#      point, inertia and motion subspace, nothing of an algorithm) against body frames' crba and
#      aba on the Panda, Solo12, romeo_small and the quarter car;
#   3. callgrind instructions per call of rnea, crba and aba generated in each variant for the
#      Panda (fingers fixed, as bench/peers.sh), Solo12 and romeo_small (floating bases), at the
#      flags of bench/peers.sh (gcc -O3 -march=x86-64-v3 -ffp-contract=fast), over the 64 states
#      of bench/peers_driver.c.
# Printed as markdown; with FRAMES_MD also written there, between the lines
#   <!-- frames: bench/frames.sh -->  and  <!-- /frames -->   (appended when absent).
#
# usage: bash bench/frames.sh MBDC [FRAMES_MD]
#   MBDC: the mbdc executable (e.g. build/generator/mbdc). Needs gcc, valgrind and
#   callgrind_annotate; about 3 minutes.
set -euo pipefail
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_mbdc_start "usage: bash bench/frames.sh MBDC [FRAMES_MD]" "$@"
bench_need gcc valgrind callgrind_annotate
variants="body joint com world"
cflags_gen=$bench_cflags_gen

# "ops MODEL FUNC FRAME N" and "auto MODEL FUNC FRAME" lines from stats --frame all
: >"$tmp/ops.txt"
models=()
for m in "$root"/examples/*.mbd "$root"/examples/urdf/*.urdf; do models+=("$m"); done
for m in "${models[@]}"; do
  name=$(basename "$m")
  fb=()
  case $m in
    *.urdf) grep -qx "${name%.urdf}" "$root/examples/urdf/floating_base.txt" && fb=(--floating-base) ;;
  esac
  echo "== stats: $name" >&2
  "$mbdc" stats "$m" -q "${fb[@]}" --frame all --json >"$tmp/stats.json"
  # {"functions": {"rnea": {... "frame": "body", "frames": {"body": 955, "joint": 2120, ...}}, ...
  grep -o '"[a-z_0-9]*": {"mul"[^}]*"frames": {[^}]*}' "$tmp/stats.json" |
    sed 's/^"\([a-z_0-9]*\)".*"frame": "\([a-z]*\)", "frames": {\(.*\)}$/\1 \2 \3/' |
    awk -v m="$name" '{
      f = $1; chosen = $2; line = $0; sub(/^[^ ]* [^ ]* /, "", line)
      n = split(line, kv, ", ")
      for (k = 1; k <= n; k++) {
        split(kv[k], p, ": "); v = p[1]; gsub(/"/, "", v)
        print "ops", m, f, v, p[2]
      }
      print "auto", m, f, chosen
    }' >>"$tmp/ops.txt"
done

ops_table() {
  echo "| model | rnea: body / joint / com / world | crba | aba | fd_loops |"
  echo "|---|---|---|---|---|"
  awk '
    $1 == "ops" { v[$2, $3, $4] = $5; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
    $1 == "auto" { a[$2, $3] = $4 }
    function cell(m, f,   s, k, x, name) {
      if (!((m, f, "body") in v)) return "—"
      split("body joint com world", name, " ")
      s = ""
      for (k = 1; k <= 4; k++) {
        x = v[m, f, name[k]]
        if (x == "null") x = "—"
        if (a[m, f] == name[k]) x = "**" x "**"
        s = s (k > 1 ? " / " : "") x
      }
      return s
    }
    END {
      for (i = 1; i <= n; i++) {
        m = order[i]
        printf "| %s | %s | %s | %s | %s |\n", m, cell(m, "rnea"), cell(m, "crba"), cell(m, "aba"),
          cell(m, "fd_loops")
      }
    }' "$tmp/ops.txt"
}

auto_table() {
  echo "| model | function | body | auto's choice | its operations | ÷ body |"
  echo "|---|---|---|---|---|---|"
  awk '
    $1 == "ops" { v[$2, $3, $4] = $5 }
    $1 == "auto" && $4 != "body" { pick[++n] = $2 " " $3 " " $4 }
    END {
      for (i = 1; i <= n; i++) {
        split(pick[i], p, " ")
        b = v[p[1], p[2], "body"]; c = v[p[1], p[2], p[3]]
        printf "| %s | %s | %d | %s | %d | %.2f |\n", p[1], p[2], b, p[3], c, c / b
      }
      if (n == 0) print "| (none) | | | | | |"
    }' "$tmp/ops.txt"
}

# what the re-expressed tree alone costs (bench/frames_tree/algorithms/frames_tree.lua), against
# body frames' whole crba and aba: "tree MODEL FRAME N", "whole MODEL FUNC N"
: >"$tmp/tree.txt"
while read -r name model flags; do
  fb=()
  [ "$flags" = "-" ] || fb=("$flags")
  "$mbdc" stats "$model" -q "${fb[@]}" --frame all --templates "$root/bench/frames_tree" \
    --functions frames_tree,crba,aba --json >"$tmp/tree.json"
  grep -o '"frames_tree": {[^}]*"frames": {[^}]*}' "$tmp/tree.json" |
    sed 's/.*"frames": {//; s/}$//' | tr ',' '\n' |
    awk -v m="$name" -F': ' '{ v = $1; gsub(/[" ]/, "", v); print "tree", m, v, $2 }' >>"$tmp/tree.txt"
  for f in crba aba; do
    grep -o "\"$f\": {[^}]*\"frames\": {\"body\": [0-9]*" "$tmp/tree.json" |
      sed 's/.*"body": //' | awk -v m="$name" -v f="$f" '{ print "whole", m, f, $1 }' >>"$tmp/tree.txt"
  done
done <<EOT
panda $root/examples/urdf/panda.urdf -
solo12 $root/examples/urdf/solo12.urdf --floating-base
romeo_small $root/examples/urdf/romeo_small.urdf --floating-base
quarter_car $root/examples/quarter_car.mbd -
EOT

tree_table() {
  echo "| operations | the re-expressed tree alone: joint / com / world | the whole \`crba\` in body frames | the whole \`aba\` in body frames | tree ÷ body's aba |"
  echo "|---|---|---|---|---|"
  awk '
    $1 == "tree" { t[$2, $3] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
    $1 == "whole" { w[$2, $3] = $4 }
    END {
      for (i = 1; i <= n; i++) {
        m = order[i]; a = w[m, "aba"]
        lo = t[m, "joint"]; hi = lo
        if (t[m, "com"] < lo) lo = t[m, "com"]; if (t[m, "com"] > hi) hi = t[m, "com"]
        if (t[m, "world"] < lo) lo = t[m, "world"]; if (t[m, "world"] > hi) hi = t[m, "world"]
        printf "| %s | %d / %d / %d | %d | %d | %.2f to %.2f |\n", m, t[m, "joint"], t[m, "com"],
          t[m, "world"], w[m, "crba"], a, lo / a, hi / a
      }
    }' "$tmp/tree.txt"
}

# instructions per call of each variant
robots="panda $(bench_panda_fixed "$tmp") -
solo12 $root/examples/urdf/solo12.urdf --floating-base
romeo_small $root/examples/urdf/romeo_small.urdf --floating-base"
: >"$tmp/instr.txt"
while read -r robot model flags; do
  for v in $variants; do
    d=$tmp/$robot/$v
    echo "== $robot, --frame $v: generate, compile, callgrind" >&2
    bench_generate "$d/gen" "$model" "$flags" --frame "$v" --functions rnea,crba,aba >/dev/null
    bench_driver "$d/gen" "$d/driver"
    bench_callgrind_driver "$d"
    for f in rnea crba aba; do
      n=$(bench_per_call "$d" "$f")
      echo "instr $robot $f $v $n" >>"$tmp/instr.txt"
    done
  done
done <<<"$robots"

instr_table() {
  echo "| robot | function | body | joint | com | world | best world-aligned ÷ body |"
  echo "|---|---|---|---|---|---|---|"
  awk '
    { n[$2, $3, $4] = $5; if (!(($2, $3) in seen)) { seen[$2, $3] = 1; order[++k] = $2 " " $3 } }
    END {
      for (i = 1; i <= k; i++) {
        split(order[i], p, " "); r = p[1]; f = p[2]
        best = n[r, f, "joint"]
        if (n[r, f, "com"] < best) best = n[r, f, "com"]
        if (n[r, f, "world"] < best) best = n[r, f, "world"]
        printf "| %s | %s | %d | %d | %d | %d | %.2f |\n", r, f, n[r, f, "body"], n[r, f, "joint"],
          n[r, f, "com"], n[r, f, "world"], best / n[r, f, "body"]
      }
    }' "$tmp/instr.txt"
}

{
  echo "<!-- frames: bench/frames.sh -->"
  echo "### Operations of every example and robot"
  echo
  echo "mul + add + div + sqrt + trig of each function in the four variants (\`mbdc stats --frame"
  echo "all\`), in the order body / joint / com / world, the one \`--frame auto\` generates in bold"
  echo "(— where the variant is not built: the flexible bodies compute in body frames only); the"
  echo "robots of \`examples/urdf/\` with the bases of \`examples/urdf/floating_base.txt\`."
  echo
  ops_table
  echo
  echo "### Where auto does not keep body"
  echo
  echo "Every function of those models (not only the three above) that \`--frame auto\` generates in a"
  echo "world-aligned variant:"
  echo
  auto_table
  echo
  echo "### What the world-aligned frames cost before any recursion"
  echo
  echo "The operations of a recipe that only builds the re-expressed tree — every body's"
  echo "orientation, point, inertia and motion subspace — and writes them out"
  echo "(\`bench/frames_tree/algorithms/frames_tree.lua\`, through \`--templates\`), against body"
  echo "frames' whole CRBA and ABA (in body frames all of it is constant):"
  echo
  tree_table
  echo
  echo "### Instructions per call"
  echo
  echo "callgrind, 64 states, the generated code at \`$cflags_gen\` (gcc), each variant generated"
  echo "with \`--frame V --functions rnea,crba,aba\`; the Panda with its fingers fixed."
  echo
  instr_table
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bash bench/frames.sh MBDC docs/frames.md\` |"
  echo "| date | $(date +%Y-%m-%d) |"
  echo "| compiler | $(gcc --version | head -1) |"
  echo "| instructions | $(valgrind --version) --tool=callgrind |"
  echo "<!-- /frames -->"
} >"$tmp/section.md"
bench_section "$tmp/section.md" "$md"
