#!/usr/bin/env bash
# plots_flexible.sh [BUILD_DIR] — build and run the flexible arm simulation
# (examples/sim/flexible_arm_sim.c, BUILD_DIR/tests/flexible_arm_sim) for the flexible arm and the
# rigid one, and plot with gnuplot (docs/flexible_plots.gp):
#   docs/flexible_arm.png  the torques, the shoulder and elbow angles of both arms, the flexible
#                          forearm's tip deflection over 5 s, and its residual vibration
# BUILD_DIR defaults to build/ (configured with cmake -S . -B build if it is not). The CSV files
# and the summaries are kept in BUILD_DIR/flexible_sim/. docs/flexible.md ("Simulation")
# describes the runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cd "$root"
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DMBDC_BENCH=OFF >/dev/null
cmake --build "$build" -j2 --target flexible_arm_sim >/dev/null
out=$build/flexible_sim
mkdir -p "$out"
"$build/tests/flexible_arm_sim" >"$out/flexible.csv" 2>"$out/flexible.txt"
"$build/tests/flexible_arm_sim" --rigid >"$out/rigid.csv" 2>"$out/rigid.txt"
cat "$out/flexible.txt" "$out/rigid.txt"
gnuplot -e "fl='$out/flexible.csv'; rg='$out/rigid.csv'" docs/flexible_plots.gp
echo "wrote docs/flexible_arm.png"
