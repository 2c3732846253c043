#!/usr/bin/python3
"""Swing the double pendulum of examples/double_pendulum.mbd up from hanging to upright with
torques too weak to lift it directly, by sampling (MPPI, model predictive path integral
control): at each control step K random torque sequences are rolled out over the horizon,
all K states advanced at once by one call of the generated forward dynamics (aba) per time
step, and the sequences averaged with weights exp(-cost / lambda).

    /usr/bin/python3 examples/python/pendulum_swingup.py [--out FILE.png] [--check]

Writes the plot (matplotlib, Agg: no display needed), prints what one batch call costs
against the same states one call at a time, and with --check exits 1 unless the pendulum
is held upright through the last second. docs/python.md explains the package."""

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "python"))  # the package from the sources, if not installed

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import mbdc  # noqa: E402

DT = 0.02            # control and integration step [s]
HORIZON = 40         # MPPI horizon: 0.8 s
SAMPLES = 256        # rollouts per control step
T_END = 5.0          # simulated time [s]
TAU_MAX = np.array([8.0, 4.0])   # shoulder, elbow [N m]: lifting the arm level needs 19.6
SIGMA = np.array([6.0, 3.0])     # exploration noise of the torques [N m]
LAMBDA = 2.0                     # MPPI temperature


def tip_height(q):
    """Height of the second rod's end above the shoulder (rods of 1 m hanging along -z at
    q = 0): -cos q1 - cos(q1 + q2); 2 upright."""
    return -np.cos(q[..., 0]) - np.cos(q[..., 0] + q[..., 1])


def cost(q, v, tau):
    return 2.0 - tip_height(q) + 0.02 * (v ** 2).sum(-1) + 0.002 * (tau ** 2).sum(-1)


def mppi_step(m, q0, v0, U, rng):
    """One MPPI update of the nominal torques U (HORIZON x 2) from the state (q0, v0)."""
    eps = rng.standard_normal((SAMPLES, HORIZON, 2)) * SIGMA
    tau = np.clip(U + eps, -TAU_MAX, TAU_MAX)
    q = np.broadcast_to(q0, (SAMPLES, 2)).copy()
    v = np.broadcast_to(v0, (SAMPLES, 2)).copy()
    total = np.zeros(SAMPLES)
    for t in range(HORIZON):
        qdd = m.aba(q, v, tau[:, t])          # SAMPLES states in one call
        v += DT * qdd                         # semi-implicit Euler
        q += DT * v
        total += cost(q, v, tau[:, t])
    total += 10.0 * cost(q, v, np.zeros(2))  # the state at the horizon's end
    w = np.exp(-(total - total.min()) / LAMBDA)
    w /= w.sum()
    return np.clip(U + np.einsum("k,kti->ti", w, tau - U), -TAU_MAX, TAU_MAX)


def timing(m):
    """One aba call on SAMPLES states against SAMPLES calls of one state."""
    rng = np.random.default_rng(1)
    q, v, tau = rng.uniform(-1, 1, (3, SAMPLES, 2))
    reps = 200
    t0 = time.perf_counter()
    for _ in range(reps):
        m.aba(q, v, tau)
    batch = (time.perf_counter() - t0) / reps
    t0 = time.perf_counter()
    for _ in range(reps // 20):
        for i in range(SAMPLES):
            m.aba(q[i], v[i], tau[i])
    single = (time.perf_counter() - t0) / (reps // 20)
    return batch, single


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="pendulum_swingup.png", help="the plot (PNG)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless it is held upright through the last second")
    args = ap.parse_args()

    start = time.perf_counter()
    m = mbdc.compile(REPO / "examples" / "double_pendulum.mbd", functions=["aba"])
    print("compiled %s (nq %d, batch functions: %s) in %.1f s" %
          (m.prefix, m.nq, "yes" if m.aba.has_batch else "no, a loop in Python",
           time.perf_counter() - start))
    batch, single = timing(m)
    print("aba on %d states: %.0f us in one call, %.0f us in %d calls (%.1fx)" %
          (SAMPLES, 1e6 * batch, 1e6 * single, SAMPLES, single / batch))

    rng = np.random.default_rng(0)
    steps = int(round(T_END / DT))
    q, v = np.zeros(2), np.zeros(2)
    U = np.zeros((HORIZON, 2))
    ts, qs, taus = [], [], []
    start = time.perf_counter()
    for k in range(steps):
        U = mppi_step(m, q, v, U, rng)
        tau = U[0].copy()
        ts.append(k * DT)
        qs.append(q.copy())
        taus.append(tau)
        v = v + DT * m.aba(q, v, tau)
        q = q + DT * v
        U = np.vstack([U[1:], U[-1:]])
    elapsed = time.perf_counter() - start
    ts, qs, taus = np.array(ts), np.array(qs), np.array(taus)
    h = tip_height(qs)
    up = np.flatnonzero(h > 1.9)
    print("%d MPPI steps of %d rollouts x %d steps (%d aba calls on %d states) in %.1f s" %
          (steps, SAMPLES, HORIZON, steps * HORIZON, SAMPLES, elapsed))
    print("tip above 1.9 m first at t = %s; final tip height %.3f m" %
          ("%.2f s" % ts[up[0]] if len(up) else "never", h[-1]))

    fig, ax = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
    ax[0].plot(ts, qs[:, 0], label="q1 (shoulder)")
    ax[0].plot(ts, qs[:, 0] + qs[:, 1], label="q1 + q2 (second rod)")
    for level in (np.pi, -np.pi):
        ax[0].axhline(level, color="gray", lw=0.5)
    ax[0].set_ylabel("angle from hanging [rad]")
    ax[0].legend(loc="lower right")
    ax[1].plot(ts, taus[:, 0], label="shoulder")
    ax[1].plot(ts, taus[:, 1], label="elbow")
    ax[1].set_ylabel("torque [N m]")
    ax[1].legend(loc="lower right")
    ax[2].plot(ts, h)
    ax[2].set_ylabel("tip height [m]")
    ax[2].set_xlabel("t [s]")
    fig.suptitle("Double pendulum swing-up by MPPI: %d rollouts per step, one aba call per "
                 "time step" % SAMPLES, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print("wrote %s" % args.out)
    held = h[ts >= T_END - 1.0].min()
    print("lowest tip height in the last second: %.3f m" % held)
    if args.check and not held > 1.9:
        print("check: the pendulum was not held upright in the last second", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
