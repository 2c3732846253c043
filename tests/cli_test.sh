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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
