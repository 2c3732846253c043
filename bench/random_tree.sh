#!/usr/bin/env bash
# A random tree of N revolute bodies as a .mbd model, for measuring generation time and memory:
# each body's parent uniform among the earlier ones (depth ~ log N), generic axes and joint
# placements (unit axes), full inertias. Deterministic for a given SEED (awk's srand).
# usage: bench/random_tree.sh N [SEED] > tree.mbd
#        /usr/bin/time -v mbdc stats tree.mbd --functions aba
set -euo pipefail
n=${1:?usage: random_tree.sh N [SEED]}
seed=${2:-1}
awk -v n="$n" -v seed="$seed" 'BEGIN {
  srand(seed)
  printf "model random_tree;\ngravity 0 0 -9.81;\n"
  for (k = 1; k <= n; k++)
    printf "body b%d { mass %.3f; com %.3f %.3f %.3f; inertia %.3f %.3f %.3f 0.001 0.002 0.003; }\n",
      k, 0.5 + 1.5 * rand(), u(0.2), u(0.2), u(0.2), 0.05 + 0.05 * rand(), 0.05 + 0.05 * rand(),
      0.05 + 0.05 * rand()
  for (k = 1; k <= n; k++) {
    parent = (k == 1) ? "world" : sprintf("b%d", 1 + int(rand() * (k - 1)))
    do { ax = u(1); ay = u(1); az = u(1) } while (ax * ax + ay * ay + az * az < 0.01)
    len = sqrt(ax * ax + ay * ay + az * az) # a unit axis: no normalization warning
    printf "joint j%d revolute %s -> b%d { origin xyz %.3f %.3f %.3f rpy %.3f %.3f %.3f; axis %.17g %.17g %.17g; }\n",
      k, parent, k, u(0.3), u(0.3), u(0.3), u(3), u(3), u(3), ax / len, ay / len, az / len
  }
}
function u(a) { return a * (2 * rand() - 1) }'
