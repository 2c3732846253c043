#!/usr/bin/env bash
# plots_loops.sh [BUILD_DIR] — build and run the closed-loop simulations (examples/sim/five_bar_sim.c,
# examples/sim/quarter_car_sim.c; BUILD_DIR/tests/<model>_sim), each with and without the
# projection, and plot with gnuplot (docs/loops_plots.gp):
#   docs/loops_five_bar.png     the five-bar's joint angles over 5 s (and its energy error)
#   docs/loops_quarter_car.png  the quarter car's wheel centre, arm and knuckle angles over 2 s
#   docs/loops_drift.png        max|phi| and max|Kv| over time, with and without projection
# BUILD_DIR defaults to build/ (configured with cmake -S . -B build if it is not). The CSV files
# are kept in BUILD_DIR/loops_sim/. docs/loops_simulation.md describes the runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cd "$root"
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DMBDC_BENCH=OFF >/dev/null
cmake --build "$build" -j2 --target five_bar_sim quarter_car_sim >/dev/null
out=$build/loops_sim
mkdir -p "$out"
for sim in five_bar quarter_car; do
  "$build/tests/${sim}_sim" >"$out/$sim.csv" 2>"$out/$sim.txt"
  "$build/tests/${sim}_sim" --no-project >"$out/${sim}_noproj.csv" 2>>"$out/$sim.txt"
  cat "$out/$sim.txt"
done
# the time bar 2 is first vertical (interpolated), from the five-bar's summary
tv=$(sed -n 's/.*first vertical at t = \([0-9.]*\) s.*/\1/p' "$out/five_bar.txt" | head -n 1)
gnuplot -e "fb='$out/five_bar.csv'; fbu='$out/five_bar_noproj.csv'; qc='$out/quarter_car.csv'; \
            qcu='$out/quarter_car_noproj.csv'; tv=$tv" docs/loops_plots.gp
echo "wrote docs/loops_five_bar.png docs/loops_quarter_car.png docs/loops_drift.png (bar 2 vertical at t = $tv s)"
