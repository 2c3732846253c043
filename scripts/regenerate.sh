#!/usr/bin/env bash
# regenerate.sh [BUILD_DIR] — rewrite generated/<stem>/ for every examples/<stem>.mbd with the mbdc
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
for dir in generated/*/; do
  stem=$(basename "$dir")
  if [ ! -e "examples/$stem.mbd" ]; then
    echo "generated/$stem: removed (no examples/$stem.mbd)"
    rm -rf "generated/$stem"
  fi
done
