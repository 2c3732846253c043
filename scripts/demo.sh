#!/usr/bin/env bash
# The main job on the bundled examples: set up, build, then check each model and draw its graph.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target mbdc >/dev/null
mkdir -p out
for model in examples/double_pendulum.mbd examples/quadruped.mbd; do
  echo "\$ mbdc check $model"
  ./build/generator/mbdc check "$model"
  name=$(basename "$model" .mbd)
  ./build/generator/mbdc graph "$model" -o "out/$name.dot"
  if command -v dot >/dev/null; then
    dot -Tpng "out/$name.dot" -o "out/$name.png"
    echo "graph: out/$name.dot, out/$name.png"
  else
    echo "graph: out/$name.dot"
  fi
  echo
done
for model in examples/*.mbd; do
  printf '%-40s ' "$model"
  ./build/generator/mbdc check "$model" >/dev/null && echo ok
done
