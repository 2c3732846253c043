#!/usr/bin/env bash
# A serial chain of N revolute links as a URDF, for timing the URDF reader against the same model
# in the language (docs/urdf.md, "Reading time"): every link with a full inertia and a centre of
# mass, every joint with an origin, an axis and the elements the reader skips (limit, dynamics).
# Deterministic. usage: bench/urdf_chain.sh N > chain.urdf
#   /usr/bin/time -f '%e s %M KB' mbdc check chain.urdf
#   mbdc import chain.urdf -o chain.mbd && /usr/bin/time -f '%e s %M KB' mbdc check chain.mbd
set -euo pipefail
n=${1:?usage: urdf_chain.sh N}
awk -v n="$n" 'BEGIN {
  printf "<?xml version=\"1.0\"?>\n<robot name=\"chain%d\">\n", n
  for (k = 0; k <= n; k++) {
    printf "  <link name=\"link%d\">\n", k
    printf "    <visual><geometry><cylinder radius=\"0.02\" length=\"0.1\"/></geometry></visual>\n"
    printf "    <inertial>\n      <origin xyz=\"0 0 0.05\" rpy=\"0 0 0\"/>\n"
    printf "      <mass value=\"%.3f\"/>\n", 1 + (k % 7) / 10
    printf "      <inertia ixx=\"0.0012\" ixy=\"1e-05\" ixz=\"-2e-05\" iyy=\"0.0011\" iyz=\"3e-05\" izz=\"0.0005\"/>\n"
    printf "    </inertial>\n  </link>\n"
  }
  for (k = 1; k <= n; k++) {
    printf "  <joint name=\"joint%d\" type=\"revolute\">\n", k
    printf "    <parent link=\"link%d\"/>\n    <child link=\"link%d\"/>\n", k - 1, k
    printf "    <origin xyz=\"0 0 0.1\" rpy=\"0 0 %.3f\"/>\n", (k % 5) / 10
    printf "    <axis xyz=\"%d %d %d\"/>\n", k % 3 == 0, k % 3 == 1, k % 3 == 2
    printf "    <limit lower=\"-3\" upper=\"3\" effort=\"10\" velocity=\"2\"/>\n"
    printf "    <dynamics damping=\"0.1\"/>\n  </joint>\n"
  }
  printf "</robot>\n"
}'
