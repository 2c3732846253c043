#!/usr/bin/env bash
# cfa_space_robot.sh [BUILD_DIR] — run the space robot simulation (examples/sim/space_robot_sim.c,
# built by the tests as BUILD_DIR/tests/space_robot_sim) and plot docs/cfa_space_robot.png with
# gnuplot (docs/cfa_space_robot.gp).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/tests/space_robot_sim" "$tmp/space_robot.dat"
cd "$root"
gnuplot -e "data='$tmp/space_robot.dat'" docs/cfa_space_robot.gp
echo "wrote docs/cfa_space_robot.png"
