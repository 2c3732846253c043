#!/usr/bin/env bash
# generated_test.sh MODE MBDC SOURCE_DIR — tests of the generated code of every example.
#
#   stale          generated/ equals a fresh generation made with the command lines of the
#                  `regenerate` target (run from a directory holding `examples/`, so the banners
#                  are the same); prints the diff when it does not
#   deterministic  two generations (double and float) give the same bytes
#
# (That the generated code compiles as strict C99 and needs libm only: the <name>_libm checks of
# tests/matrix.txt, on the objects the build made: tests/libm_test.sh.)
set -euo pipefail
mode=$1 mbdc=$2 src=$3
mbdc=$(cd "$(dirname "$mbdc")" && pwd)/$(basename "$mbdc")
src=$(cd "$src" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# generate DIR [OPTIONS...]: every example into DIR/generated/<stem>, exactly as the regenerate
# target does it (mbdc run from DIR, where examples/ links to the sources).
generate() {
  local dir=$1 model stem
  shift
  mkdir -p "$dir/generated"
  ln -s "$src/examples" "$dir/examples"
  for model in "$src"/examples/*.mbd; do
    stem=$(basename "$model" .mbd)
    if ! (cd "$dir" && "$mbdc" generate "examples/$stem.mbd" -o "generated/$stem" "$@" \
          2>"$dir/$stem.err"); then
      cat "$dir/$stem.err" >&2
      echo "FAIL: mbdc generate examples/$stem.mbd -o generated/$stem $*" >&2
      exit 1
    fi
  done
  # the robots of examples/urdf/ into generated/urdf/<stem>, as scripts/regenerate.sh does
  for model in "$src"/examples/urdf/*.urdf; do
    stem=$(basename "$model" .urdf)
    local fb=()
    if grep -qx "$stem" "$src/examples/urdf/floating_base.txt"; then fb=(--floating-base); fi
    local ct
    ct=$(awk -v s="$stem" '$1 == s { print $2 }' "$src/examples/urdf/contacts.txt")
    if [ -n "$ct" ]; then fb+=(--contacts "$ct"); fi
    mkdir -p "$dir/generated/urdf"
    if ! (cd "$dir" && "$mbdc" generate "examples/urdf/$stem.urdf" "${fb[@]}" \
          -o "generated/urdf/$stem" "$@" 2>"$dir/$stem.err"); then
      cat "$dir/$stem.err" >&2
      echo "FAIL: mbdc generate examples/urdf/$stem.urdf ${fb[*]} -o generated/urdf/$stem $*" >&2
      exit 1
    fi
  done
}

# The files that differ between two trees; the diff itself on stdout (first 300 lines).
differ() {
  if ! diff -ru --exclude=README.md "$1" "$2" >"$tmp/diff"; then
    head -n 300 "$tmp/diff"
    [ "$(wc -l <"$tmp/diff")" -le 300 ] || echo "... ($(wc -l <"$tmp/diff") lines in all)"
    return 1
  fi
}

case $mode in
stale)
  generate "$tmp/fresh"
  if ! differ "$src/generated" "$tmp/fresh/generated"; then
    echo "FAIL: generated/ is stale (above: diff checked-in → fresh). Regenerate it with" \
         "'cmake --build BUILD --target regenerate' or 'scripts/regenerate.sh BUILD', and commit."
    exit 1
  fi
  echo "ok: generated/ is up to date ($(ls "$src"/examples/*.mbd "$src"/examples/urdf/*.urdf | wc -l) models)"
  ;;
deterministic)
  generate "$tmp/a"
  generate "$tmp/af" --scalar float
  # The second run with other heap contents and addresses: nothing may depend on them.
  MALLOC_PERTURB_=165 generate "$tmp/b"
  MALLOC_PERTURB_=90 generate "$tmp/bf" --scalar float
  differ "$tmp/a/generated" "$tmp/b/generated" || { echo "FAIL: double output differs"; exit 1; }
  differ "$tmp/af/generated" "$tmp/bf/generated" || { echo "FAIL: float output differs"; exit 1; }
  echo "ok: two generations are identical (double and float)"
  ;;
*)
  echo "usage: generated_test.sh stale|deterministic MBDC SOURCE_DIR" >&2
  exit 2
  ;;
esac
