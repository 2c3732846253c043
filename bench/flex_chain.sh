#!/usr/bin/env bash
# A serial chain of N flexible bodies with NM assumed modes each, as a .mbd model, for comparing
# the generated operation counts with Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody
# Systems Using Spatial Operators" (JPL Publication 90-26, 1990), Table 1 (docs/flexible.md,
# "Operation counts"), and for the flexible benchmark (bench/flex.sh).
#
# The general 3-D case, not the planar beam preset: every body has nodal data on 4 nodes (along
# its x axis, slightly off it), each with a lumped mass and a full 3 × 3 inertia; every mode moves
# every node (the root one too: free-free modes) with all six shape components nonzero and
# different per node and mode; the modal stiffness is K = A Aᵀ + c 1 (A pseudo-random), symmetric
# positive definite and dense. Body k hangs on a revolute joint from body k−1's tip node (`node`),
# its joint frame turned by a pseudo-random rpy (up to ±0.5 rad about each axis), the axes
# alternating z, y, x in the joint frames (body 1 from the world, about z). No damping unless DAMPING is 1
# (then D = K / 200, dense too).
# Deterministic: a Park–Miller generator (16807 x mod 2^31 − 1, exact in any awk's doubles), so
# every awk writes the same file for the same arguments.
#
# usage: bench/flex_chain.sh N NM [DAMPING] [SEED] > chain.mbd
#        mbdc stats chain.mbd --functions aba,crba_fd
set -euo pipefail
n=${1:?usage: flex_chain.sh N NM [DAMPING] [SEED]}
nm=${2:?usage: flex_chain.sh N NM [DAMPING] [SEED]}
damping=${3:-0}
seed=${4:-1}
awk -v n="$n" -v nm="$nm" -v damping="$damping" -v seed="$seed" 'BEGIN {
  state = 1 + (seed * 7919) % 2147483646
  for (k = 0; k < 10; k++) rnd()
  L = 0.5
  printf "# flex_chain: %d flexible bodies, %d modes each, nodal data on 4 nodes (bench/flex_chain.sh %s %s %s %s)\n",
    n, nm, n, nm, damping, seed
  printf "model flex_chain_%d_%d;\ngravity 0 0 -9.81;\n\n", n, nm
  for (b = 1; b <= n; b++) body(b)
  axis[0] = "0 0 1"; axis[1] = "0 1 0"; axis[2] = "1 0 0"
  for (b = 1; b <= n; b++) {
    rpy = sprintf("%.3f %.3f %.3f", u(0.5), u(0.5), u(0.5))
    if (b == 1)
      printf "joint j1 revolute world -> b1 { origin rpy %s; axis %s; }\n", rpy, axis[0]
    else
      printf "joint j%d revolute b%d -> b%d { origin xyz %s rpy %s; axis %s; node n3; }\n",
        b, b - 1, b, tip[b - 1], rpy, axis[(b - 1) % 3]
  }
}
function rnd() { state = (16807 * state) % 2147483647; return state / 2147483647 }
function u(a) { return a * (2 * rnd() - 1) }
# a number in [lo, hi) away from zero: |x| >= lo, random sign
function nz(lo, hi, x) { x = lo + (hi - lo) * rnd(); return rnd() < 0.5 ? -x : x }
function body(b, j, k, i, l, x, y, z, m) {
  printf "body b%d flexible {\n  nodes {\n", b
  for (j = 0; j < 4; j++) {
    x = j * L / 3; y = j ? u(0.02) : 0; z = j ? u(0.02) : 0
    m = (j == 0 || j == 3 ? 0.25 : 0.5) * (0.8 + 0.4 * rnd())
    printf "    n%d xyz %.4f %.4f %.4f  mass %.4f  inertia %.5f %.5f %.5f %.6f %.6f %.6f;\n",
      j, x, y, z, m, m * (0.012 + 0.004 * rnd()), m * (0.02 + 0.005 * rnd()),
      m * (0.02 + 0.005 * rnd()), m * u(0.0005), m * u(0.0005), m * u(0.0005)
    if (j == 3) tip[b] = sprintf("%.4f %.4f %.4f", x, y, z)
  }
  printf "  }\n  modes {\n"
  for (k = 1; k <= nm; k++) {
    printf "    e%d {", k
    for (j = 0; j < 4; j++) {
      printf "%s n%d", j ? ";" : "", j
      for (i = 0; i < 3; i++) printf " %.4f", nz(0.1, 1.5)   # rotation
      for (i = 0; i < 3; i++) printf " %.4f", nz(0.02, 0.3)  # translation
    }
    printf "; }\n"
  }
  printf "  }\n"
  for (i = 1; i <= nm; i++)
    for (l = 1; l <= nm; l++) A[i, l] = u(1)
  for (i = 1; i <= nm; i++)
    for (l = i; l <= nm; l++) {
      x = (i == l) ? nm : 0
      for (k = 1; k <= nm; k++) x += A[i, k] * A[l, k]
      K[i, l] = K[l, i] = sprintf("%.4f", 200 * x * (1 + i / 4) * (1 + l / 4)) # D (A Aᵀ + c 1) D
    }
  matrix("stiffness", 1)
  if (damping) matrix("damping", 1 / 200)
  printf "}\n\n"
}
function matrix(name, s, i, l) {
  printf "  %s {", name
  for (i = 1; i <= nm; i++) {
    printf "%s", (i > 1 ? ";" : "")
    for (l = 1; l <= nm; l++) printf " %.6g", K[i, l] * s
  }
  printf "; }\n"
}'
