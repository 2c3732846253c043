#!/usr/bin/env bash
# generated_test.sh MODE MBDC SOURCE_DIR [CC NM] — tests of the generated code of every example.
#
#   stale          generated/ equals a fresh generation made with the command lines of the
#                  `regenerate` target (run from a directory holding `examples/`, so the banners
#                  are the same); prints the diff when it does not
#   deterministic  two generations (double and float) give the same bytes
#   libm           every example's <p>_dynamics.c (libm_float: generated with --scalar float, the
#                  examples/*.mbd only; two modes, so ctest runs them side by side) compiles with
#                  CC -std=c99 -Wall -Wextra -Werror -pedantic -Wvla -c (also at -O2), `nm -u` of
#                  the object lists libm functions only (sin cos sqrt and their float versions;
#                  at -O2 also sincos, sincosf, which GCC makes of a sin and cos pair), the object defines no writable data and
#                  the source declares no static data but const tables (the robots of
#                  examples/urdf/ at -O0 only: the build compiles them at -O2)
set -euo pipefail
mode=$1 mbdc=$2 src=$3 cc=${4:-cc} nm=${5:-nm}
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
libm | libm_float)
  if [ "$mode" = libm ]; then generate "$tmp/d"; else generate "$tmp/d" --scalar float; fi
  allowed=" sin cos sqrt atan2 sinf cosf sqrtf atan2f "
  failed=0
  robots=("$tmp"/d/generated/urdf/*/*_dynamics.c)
  # float: the examples/*.mbd cover every template path; the robots' megabytes add nothing there
  [ "$mode" = libm ] || robots=()
  for c in "$tmp"/d/generated/*/*_dynamics.c "${robots[@]}"; do
    name=${c#"$tmp"/}
    # The robots' files take minutes at -O2 (romeo_small 3 MB: ~50 s each); they are compiled at
    # -O2 with the same warnings by the build (mbdc_add_model), here at -O0 only.
    opts=("" -O2)
    case $name in */generated/urdf/*) opts=("") ;; esac
    for opt in "${opts[@]}"; do
      o=${c%.c}$opt.o
      if ! "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -Wvla $opt -c "$c" -o "$o"; then
        echo "FAIL: $name does not compile cleanly ($cc -std=c99 ... $opt)"
        failed=1
        continue
      fi
      for sym in $("$nm" -u "$o" | awk '{print $NF}'); do
        # GCC merges sin and cos of one argument into glibc's sincos when optimizing.
        case $allowed${opt:+ sincos sincosf } in
        *" $sym "*) ;;
        *) echo "FAIL: $name ($opt) calls '$sym': generated code may use libm only"; failed=1 ;;
        esac
      done
      # Defined symbols in writable sections (.data, .bss, common); .data.rel.ro is read-only.
      "$nm" -f sysv --defined-only "$o" | awk -F'|' -v f="$name" '
        NF >= 7 {
          sym = $1; sec = $7; gsub(/[ \t]/, "", sym); gsub(/[ \t]/, "", sec)
          if (sec ~ /^\*COM\*$|^\.(data|bss|tdata|tbss)($|\.)/ && sec !~ /^\.data\.rel\.ro/) {
            print "FAIL: " f " defines writable data: " sym " in " sec; bad = 1
          }
        }
        END { exit bad }' || failed=1
    done
    # No static data but const tables (static functions would be fine).
    if grep -nE '(^|[^A-Za-z0-9_])static[[:space:]]' "$c" |
         grep -vE 'static[[:space:]]+const[^A-Za-z0-9_]' |
         grep -vE 'static[[:space:]]+([A-Za-z_][A-Za-z0-9_]*[[:space:]*]+)+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\('; then
      echo "FAIL: $name declares static non-const data (above)"
      failed=1
    fi
  done
  [ $failed -eq 0 ] || exit 1
  echo "ok: every generated dynamics file is strict C99, libm only, without writable data"
  ;;
*)
  echo "usage: generated_test.sh stale|deterministic|libm|libm_float MBDC SOURCE_DIR [CC NM]" >&2
  exit 2
  ;;
esac
