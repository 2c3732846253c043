#!/usr/bin/env bash
# The mbdc command as a user meets it: exit statuses (0 ok, 1 model errors, 2 usage), every example
# accepted, graphs that Graphviz reads, and no half-written output file after a failure.
# usage: cli_test.sh MBDC SOURCE_DIR
set -u
mbdc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
expect() { # expect STATUS DESCRIPTION -- COMMAND...
  local want=$1 what=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $what: exit $got, expected $want"
    sed 's/^/  | /' "$tmp/err" | head -20
  fi
}

expect 0 "--help" -- "$mbdc" --help
grep -q '^usage: mbdc' "$tmp/out" || { echo "FAIL: --help prints no usage"; fail=$((fail + 1)); }
expect 0 "--version" -- "$mbdc" --version
grep -Eq '^mbdc [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" || { echo "FAIL: --version"; fail=$((fail + 1)); }
expect 2 "no arguments" -- "$mbdc"
expect 2 "unknown command" -- "$mbdc" frobnicate x.mbd
expect 2 "check without a model" -- "$mbdc" check
expect 2 "unknown option" -- "$mbdc" check --bogus "$src/examples/cart_pole.mbd"
expect 2 "-o without a file" -- "$mbdc" graph "$src/examples/cart_pole.mbd" -o
expect 1 "missing model file" -- "$mbdc" check "$tmp/does-not-exist.mbd"

for model in "$src"/examples/*.mbd; do
  name=$(basename "$model" .mbd)
  expect 0 "check $name" -- "$mbdc" check "$model"
  grep -q "^model " "$tmp/out" || { echo "FAIL: check $name printed no summary"; fail=$((fail + 1)); }
  expect 0 "graph $name" -- "$mbdc" graph "$model" -o "$tmp/$name.dot"
  if command -v dot >/dev/null; then
    expect 0 "dot reads $name" -- dot -Tsvg "$tmp/$name.dot" -o "$tmp/$name.svg"
  fi
done

printf 'body b { mass 1; }\njoint j revolute world -> b { axis 0 0 0; }\n' >"$tmp/bad.mbd"
expect 1 "a model error" -- "$mbdc" check "$tmp/bad.mbd"
grep -q "bad.mbd:2:31: error: 'axis' must be a non-zero vector" "$tmp/err" ||
  { echo "FAIL: located message"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 1 "graph of a bad model" -- "$mbdc" graph "$tmp/bad.mbd" -o "$tmp/bad.dot"
if ls "$tmp"/bad.dot* >/dev/null 2>&1; then
  echo "FAIL: a failed graph left a file behind"
  fail=$((fail + 1))
fi
expect 2 "graph into a missing directory" -- "$mbdc" graph "$src/examples/cart_pole.mbd" -o "$tmp/no/such/dir/x.dot"

# generate and stats: usage errors, recipe errors located in the template, nothing half-written
cp="$src/examples/cart_pole.mbd"
expect 2 "generate without a model" -- "$mbdc" generate
expect 2 "--scalar bad" -- "$mbdc" generate "$cp" --scalar quad -o "$tmp/g"
expect 2 "unknown function" -- "$mbdc" generate "$cp" --functions rnea,nope -o "$tmp/g"
grep -q "no recipe for function 'nope'" "$tmp/err" || { echo "FAIL: unknown function message"; fail=$((fail + 1)); }
expect 2 "stats takes no -o" -- "$mbdc" stats "$cp" -o "$tmp/g"
expect 2 "bad prefix" -- "$mbdc" generate "$cp" --prefix 9lives -o "$tmp/g"
expect 1 "generate a bad model" -- "$mbdc" generate "$tmp/bad.mbd" -o "$tmp/g"
mkdir -p "$tmp/tpl/algorithms"
printf 'return {\n  name = "rnea", summary = "x", returns = "void",\n  params = {{name = "q", role = "q"}, {name = "tau", role = "out_nv"}},\n  build = function(model)\n    local x = model.bodies[1].nope.x\n  end,\n}\n' >"$tmp/tpl/algorithms/rnea.lua"
expect 1 "a failing recipe" -- "$mbdc" generate "$cp" --templates "$tmp/tpl" --functions rnea -o "$tmp/g"
grep -q "tpl/algorithms/rnea.lua:5: attempt to index a nil value" "$tmp/err" ||
  { echo "FAIL: recipe error not located"; cat "$tmp/err"; fail=$((fail + 1)); }
if [ -e "$tmp/g" ] && [ -n "$(ls -A "$tmp/g")" ]; then
  echo "FAIL: a failed generation left files behind"; fail=$((fail + 1))
fi
printf 'return {\n  name = "rnea", summary = "x", returns = "void",\n  params = {{name = "q", role = "q"}, {name = "tau", role = "out_nv"}},\n  build = function(model) sym.output("tau", 0, 1) end,\n}\n' >"$tmp/tpl/algorithms/rnea.lua"
expect 1 "a recipe that misses an output" -- "$mbdc" generate "$cp" --templates "$tmp/tpl" --functions rnea -o "$tmp/g"
grep -q "never writes tau\[1\]" "$tmp/err" || { echo "FAIL: missing output message"; fail=$((fail + 1)); }
expect 0 "generate cart_pole" -- "$mbdc" generate "$cp" -o "$tmp/g"
for f in cart_pole_dynamics.h cart_pole_dynamics.c cart_pole_model.c cart_pole_check.c; do
  [ -s "$tmp/g/$f" ] || { echo "FAIL: generate wrote no $f"; fail=$((fail + 1)); }
done
# one moving body: cfa's elimination order has no neighbours at all (clang's UBSan once caught
# pointer arithmetic on the empty neighbour array, gen_model.c)
printf 'model one;\nbody b { mass 1; inertia 1 1 1; }\njoint j revolute world -> b { axis 0 0 1; }\n' >"$tmp/one.mbd"
expect 0 "generate a one-body model" -- "$mbdc" generate "$tmp/one.mbd" -o "$tmp/one"
[ -s "$tmp/one/one_dynamics.c" ] && grep -q 'one_cfa' "$tmp/one/one_dynamics.c" ||
  { echo "FAIL: one-body model: no cfa generated"; fail=$((fail + 1)); }
expect 0 "generate into a directory that does not exist yet" -- "$mbdc" generate "$cp" -o "$tmp/deep/a/b"
[ -s "$tmp/deep/a/b/cart_pole_check.c" ] || { echo "FAIL: -o a/b/c not created"; fail=$((fail + 1)); }
expect 2 "--cfa-order bad" -- "$mbdc" generate "$cp" --cfa-order zigzag -o "$tmp/g"
grep -q "cfa-order takes odd-even or tips" "$tmp/err" || { echo "FAIL: --cfa-order message"; fail=$((fail + 1)); }
expect 0 "stats of cfa in one order" -- "$mbdc" stats "$src/examples/space_robot.mbd" --functions cfa --cfa-order odd-even
grep -q '^cfa\[odd-even\]' "$tmp/out" || { echo "FAIL: stats cfa[odd-even] row"; cat "$tmp/out"; fail=$((fail + 1)); }
expect 0 "stats --json with cfa" -- "$mbdc" stats "$src/examples/space_robot.mbd" --json
grep -Eq '"cfa": \{"order": "tips", "tips": \{"generated": true, "mul": [0-9]+.*"depth": [0-9]+, "solve_depth": [0-9]+.*"odd-even": \{' "$tmp/out" ||
  { echo "FAIL: stats --json cfa member"; cat "$tmp/out"; fail=$((fail + 1)); }
expect 0 "stats --json" -- "$mbdc" stats "$cp" --json
grep -Eq '^\{"functions": \{"rnea": \{"mul": [0-9]+, "add": [0-9]+, "div": [0-9]+, "sqrt": [0-9]+, "trig": [0-9]+\}' "$tmp/out" ||
  { echo "FAIL: stats --json shape"; cat "$tmp/out"; fail=$((fail + 1)); }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
