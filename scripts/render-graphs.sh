#!/usr/bin/env bash
# Draw the topology graph of every example into docs/graphs/ (mbdc graph + Graphviz dot).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target mbdc >/dev/null
mkdir -p docs/graphs
for model in examples/*.mbd; do
  name=$(basename "$model" .mbd)
  ./build/generator/mbdc graph "$model" | dot -Tpng -Gdpi=72 -o "docs/graphs/$name.png"
  echo "docs/graphs/$name.png"
done
