#!/usr/bin/env bash
# The main job on a bundled robot: set up, build mbdc and the runtime, generate the 7-DoF arm's
# dynamics, compile them (C99, warnings as errors, libm only) with the cross-check harness, run
# it and print its result; then check every bundled model and draw the arm's topology graph.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target mbdc mbrt >/dev/null
mkdir -p out
model=examples/arm7.mbd
echo "\$ mbdc generate $model -o out/arm7"
./build/generator/mbdc generate "$model" -o out/arm7
ls out/arm7
echo "\$ mbdc stats $model"
./build/generator/mbdc stats "$model"
echo "\$ cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -Wvla out/arm7/*.c -lmbrt -lm -o out/arm7/arm7_check"
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -Wvla -Iout/arm7 -Iruntime out/arm7/*.c \
  build/runtime/libmbrt.a -lm -o out/arm7/arm7_check
echo "\$ out/arm7/arm7_check"
out/arm7/arm7_check
echo
./build/generator/mbdc graph "$model" -o out/arm7.dot
if command -v dot >/dev/null; then
  dot -Tpng out/arm7.dot -o out/arm7.png
  echo "topology graph: out/arm7.dot, out/arm7.png"
fi
for m in examples/*.mbd; do
  printf '%-40s ' "mbdc check $m"
  ./build/generator/mbdc check "$m" >/dev/null && echo ok
done
