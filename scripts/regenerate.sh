#!/usr/bin/env bash
# regenerate.sh [BUILD_DIR] — rewrite generated/<stem>/ for every examples/<stem>.mbd, and
# generated/urdf/<stem>/ for every examples/urdf/<stem>.urdf (with --floating-base for the robots
# listed in examples/urdf/floating_base.txt, --contacts for those of contacts.txt), with the mbdc
# of BUILD_DIR (default: build/), as `cmake --build BUILD_DIR --target regenerate` does: run from
# the source directory with relative paths, so the banners carry no absolute path. Directories of
# generated/ whose example is gone are removed. Set MBDC=path/to/mbdc to use another binary.
# The test generated_stale fails until generated/ is regenerated and committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
mbdc=${MBDC:-$build/generator/mbdc}
if [ ! -x "$mbdc" ]; then
  echo "regenerate.sh: no mbdc at $mbdc; build it first:" >&2
  echo "  cmake -S . -B build && cmake --build build --target mbdc" >&2
  exit 2
fi
mbdc=$(cd "$(dirname "$mbdc")" && pwd)/$(basename "$mbdc")
cd "$root"

for model in examples/*.mbd; do
  stem=$(basename "$model" .mbd)
  rm -rf "generated/$stem"
  mkdir -p "generated/$stem"
  "$mbdc" generate "$model" -o "generated/$stem"
  echo "generated/$stem: $(cd "generated/$stem" && echo *)"
done
for model in examples/urdf/*.urdf; do
  stem=$(basename "$model" .urdf)
  fb=()
  if grep -qx "$stem" examples/urdf/floating_base.txt; then fb=(--floating-base); fi
  ct=$(awk -v s="$stem" '$1 == s { print $2 }' examples/urdf/contacts.txt)
  if [ -n "$ct" ]; then fb+=(--contacts "$ct"); fi
  rm -rf "generated/urdf/$stem"
  mkdir -p "generated/urdf/$stem"
  "$mbdc" generate "$model" "${fb[@]}" -o "generated/urdf/$stem" 2>/dev/null
  echo "generated/urdf/$stem: $(cd "generated/urdf/$stem" && echo *)"
done
for dir in generated/urdf/*/; do
  stem=$(basename "$dir")
  if [ ! -e "examples/urdf/$stem.urdf" ]; then
    echo "generated/urdf/$stem: removed (no examples/urdf/$stem.urdf)"
    rm -rf "generated/urdf/$stem"
  fi
done
for dir in generated/*/; do
  stem=$(basename "$dir")
  [ "$stem" = urdf ] && continue
  if [ ! -e "examples/$stem.mbd" ]; then
    echo "generated/$stem: removed (no examples/$stem.mbd)"
    rm -rf "generated/$stem"
  fi
done
