/* test_flex_energy.c — the energy balance of the flexible arm simulated with mb_aba and
 * mb_integrate by the classical Runge-Kutta method (RK4), in zero gravity: without damping the
 * energy ½ vᵀ M v + ½ ηᵀ K η is conserved to the integrator's error, which falls at its order as
 * the step halves; with modal damping it decreases by ∫ η̇ᵀ D η̇ dt; with a constant shoulder
 * torque it grows by ∫ τᵀ v dt = τ Δθ. The ruthlessly linearized model's RNEA is exact for its
 * kinetic energy (Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody Systems Using
 * Spatial Operators", JPL Publication 90-26, 1990, §8), so these hold exactly for the ODE
 * (d/dt (T + V) = τᵀ v − η̇ᵀ D η̇) and only the integrator's error is left. RK4: Hairer, Nørsett
 * & Wanner, "Solving Ordinary Differential Equations I", 1993, §II.1. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbt_flex.h"

enum { MAXV = 32 };

static const double T_END = 0.5;

typedef struct run {
  double E0, E1;  /* energy at t = 0 and at T_END */
  double Wrk;     /* ∫ loss dt by the RK4 weights (the integral as one more RK4 state) */
  double Wtrap;   /* the same by the trapezoid rule on the steps' ends */
  double dtheta;  /* the shoulder's (coordinate 0) travel */
  double df;      /* f'(T) − f'(0), f = η̇ᵀ D η̇, f' = 2 η̇ᵀ D η̈ (the trapezoid's error term) */
} run;

static double energy(mbt_fm *F, const double *q, const double *v) {
  return mbt_kinetic(F, q, v) + mbt_elastic(F->model, q);
}

/* a = aba(q ⊕ c dt·w, v + c dt·k): one RK4 stage from (q, v). */
static void stage(mbt_fm *F, const double *tau, const double *q, const double *v,
                  const double *w, const double *k, double c, double *qs, double *vs, double *a) {
  assert_int_equal(mb_integrate(F->model, q, w, c, qs), MB_OK);
  for (int i = 0; i < F->nv; i++) vs[i] = v[i] + c * k[i];
  assert_int_equal(mb_aba(F->model, &F->ws, qs, vs, tau, NULL, a), MB_OK);
}

/* The power the model's non-applied, non-conservative forces take: the damping η̇ᵀ D η̇ and the
 * velocity-product load of the undeformed bodies on the modes, η̇ᵀ b_η⁰ (mbt_q_power). */
static double loss(mbt_fm *F, const double *q, const double *v) {
  return mbt_dissipation(F->model, v) + mbt_q_power(F, q, v);
}

/* One RK4 step of (q̇, v̇) = (v, aba(q, v, τ)); q advanced by mb_integrate along the weighted
 * mean of the stage velocities. Returns ∫ η̇ᵀ D η̇ over the step by the same weights. */
static double rk4_step(mbt_fm *F, const double *tau, double *q, double *v, double dt) {
  int n = F->nv;
  double q2[MAXV], q3[MAXV], q4[MAXV], v2[MAXV], v3[MAXV], v4[MAXV];
  double a1[MAXV], a2[MAXV], a3[MAXV], a4[MAXV], vm[MAXV];
  assert_int_equal(mb_aba(F->model, &F->ws, q, v, tau, NULL, a1), MB_OK);
  stage(F, tau, q, v, v, a1, dt / 2, q2, v2, a2);
  stage(F, tau, q, v, v2, a2, dt / 2, q3, v3, a3);
  stage(F, tau, q, v, v3, a3, dt, q4, v4, a4);
  double w = dt / 6 * (loss(F, q, v) + 2 * loss(F, q2, v2) + 2 * loss(F, q3, v3) +
                       loss(F, q4, v4));
  for (int i = 0; i < n; i++) {
    vm[i] = (v[i] + 2 * v2[i] + 2 * v3[i] + v4[i]) / 6;
    v[i] += dt / 6 * (a1[i] + 2 * a2[i] + 2 * a3[i] + a4[i]);
  }
  assert_int_equal(mb_integrate(F->model, q, vm, dt, q), MB_OK);
  return w;
}

/* f' = 2 η̇ᵀ D η̈ at (q, v), η̈ from mb_aba. */
static double dissipation_rate(mbt_fm *F, const double *q, const double *v, const double *tau) {
  double a[MAXV], w[MAXV];
  assert_int_equal(mb_aba(F->model, &F->ws, q, v, tau, NULL, a), MB_OK);
  for (int k = 0; k < F->nv; k++) w[k] = v[k] + a[k];
  /* (v + a)ᵀ D (v + a) − vᵀ D v − aᵀ D a = 2 vᵀ D a (D symmetric) */
  return mbt_dissipation(F->model, w) - mbt_dissipation(F->model, v) -
         mbt_dissipation(F->model, a);
}

static run simulate(mbt_fm *F, const double *q0, const double *v0, const double *tau, double dt) {
  run r = {0};
  double q[MAXV], v[MAXV];
  memcpy(q, q0, (size_t)F->nq * sizeof *q);
  memcpy(v, v0, (size_t)F->nv * sizeof *v);
  r.E0 = energy(F, q, v);
  r.df = -dissipation_rate(F, q, v, tau);
  long steps = lround(T_END / dt);
  double p0 = mbt_dissipation(F->model, v);
  for (long s = 0; s < steps; s++) {
    r.Wrk += rk4_step(F, tau, q, v, dt);
    double p1 = mbt_dissipation(F->model, v);
    r.Wtrap += dt / 2 * (p0 + p1);
    p0 = p1;
  }
  r.E1 = energy(F, q, v);
  r.df += dissipation_rate(F, q, v, tau);
  r.dtheta = q[0] - q0[0];
  return r;
}

/* The arm in zero gravity, from a bent and moving state. */
static void load_arm(const char *relpath, mbt_fm *F, double *q0, double *v0) {
  mbt_fm_file(relpath, F);
  assert_true(F->nv <= MAXV && F->nq == F->nv);
  for (int k = 0; k < 3; k++) F->model->gravity[k] = 0;
  static const double qs[] = {0.3, -0.5, 0.4}, vs[] = {1.0, -2.0, 1.5};
  static const double es[] = {0.02, -0.003, 0.0005}, eds[] = {0.3, 0.5, -0.2};
  int b = 0;
  for (int i = 1; i <= F->model->nb; i++) {
    q0[F->model->iq[i]] = qs[i - 1], v0[F->model->iv[i]] = vs[i - 1];
    if (mb_body_nm(F->model, i) > 0) b = i;
  }
  for (int k = 0; k < mb_body_nm(F->model, b); k++)
    q0[mbt_mode_iq(F->model, b) + k] = es[k], v0[mbt_mode_iv(F->model, b) + k] = eds[k];
}

/* The largest natural frequency of the arm linearized about any configuration: K x = ω² M(q) x
 * with K padded by zero joint rows, the largest ω over 50 random configurations (M depends on
 * the joint angles only). */
static double omega_max(mbt_fm *F) {
  int n = F->nv;
  double q[MAXV], M[MAXV * MAXV], K[MAXV * MAXV] = {0}, w[MAXV], wmax = 0;
  const mb_model *m = F->model;
  for (int i = 1, e2 = 0; i <= m->nb; i++) {
    int nm = mb_body_nm(m, i), o = mbt_mode_iv(m, i);
    for (int r = 0; r < nm; r++)
      for (int c = 0; c < nm; c++) K[n * (o + r) + o + c] = m->flex->K[e2 + nm * r + c];
    e2 += nm * nm;
  }
  unsigned long long seed = 3;
  for (int s = 0; s < 50; s++) {
    mbt_random_q(m, &seed, 0, q);
    for (int k = 0; k < n; k++) q[k] *= 3.2; /* angles over [-π, π] and beyond */
    assert_int_equal(mb_crba(F->model, &F->ws, q, M), MB_OK);
    assert_int_equal(mbt_gen_eig(n, K, M, w), 0);
    wmax = fmax(wmax, sqrt(w[n - 1]));
  }
  return wmax;
}

/* RK4 on an undamped oscillation of frequency ω multiplies its energy by |R(iωh)|² per step,
 * R(z) = 1 + z + z²/2 + z³/6 + z⁴/24 its stability function: |R(iy)|² = 1 − y⁶/72 + y⁸/576
 * (Hairer & Wanner, "Solving Ordinary Differential Equations II", 1996, §IV.2). No mode is
 * damped faster than the stiffest, so over T the integrator changes the energy E by at most
 * (T/h) (y⁶/72 − y⁸/576) E, y = ω_max h: of order h⁵, a ratio 32 per halving once it dominates
 * the O(h⁴) global error (ratio 16). The tests assert the error below this bound and its ratio
 * between 16 and 32 (20 % either side: not yet asymptotic). */
static double drift_bound(double wmax, double dt) {
  double y = wmax * dt, y6 = y * y * y * y * y * y;
  return (double)lround(T_END / dt) * (y6 / 72 - y6 * y * y / 576);
}

static void assert_rk4_order(const double *err, int n) {
  for (int k = 1; k < n; k++) {
    double ratio = err[k - 1] / err[k];
    if (!(ratio > 16 * 0.8 && ratio < 32 * 1.2)) fail_msg("error ratio %.2f per halving", ratio);
  }
}

/* No damping, no torque: E(0) − E(T) = ∫ η̇ᵀ b_η⁰ dt, the work of the velocity-product load on
 * the modes (integrated with RK4's own weights), to less than the bound above, the balance's error
 * falling at RK4's order as the step halves. */
void test_flex_energy(void **state) {
  (void)state;
  mbt_fm F;
  double q0[MAXV] = {0}, v0[MAXV] = {0}, tau[MAXV] = {0}, drift[3];
  load_arm("examples/flexible_arm.mbd", &F, q0, v0);
  double wmax = omega_max(&F);
  static const double dts[] = {2e-4, 1e-4, 5e-5};
  print_message("  flexible_arm, zero gravity, no damping, 0.5 s of RK4, omega_max %.1f rad/s\n"
                "    dt      E(0) [J]         |E(0) - E(T) - W|/E(0)  bound       ratio\n", wmax);
  for (int k = 0; k < 3; k++) {
    run r = simulate(&F, q0, v0, tau, dts[k]);
    drift[k] = fabs(r.E0 - r.E1 - r.Wrk) / r.E0;
    print_message("    %.0e   %.12f   %.3e           %.3e", dts[k], r.E0, drift[k],
                  drift_bound(wmax, dts[k]));
    print_message(k ? "   %.1f\n" : "\n", k ? drift[k - 1] / drift[k] : 0.0);
    assert_true(drift[k] < drift_bound(wmax, dts[k]));
  }
  /* the order from the two smaller steps (at 2e-4, ω_max dt = 0.41: not yet asymptotic) */
  assert_rk4_order(drift + 1, 2);
  mbt_fm_free(&F);
}

/* The nodal arm has modal damping: E(0) − E(T) = ∫ η̇ᵀ D η̇ dt. Integrated with RK4's own weights
 * (the integral as one more state of the ODE) the balance closes to the integrator's error
 * (the bound above, falling at its order). The trapezoid rule on the steps' ends adds its own
 * O(dt²) error, whose Euler-Maclaurin leading term h²/12 [f']₀ᵀ (Davis & Rabinowitz, "Methods
 * of Numerical Integration", 1984, §2.9) accounts for it: the corrected balance closes to the
 * integrator's error again. */
void test_flex_damped(void **state) {
  (void)state;
  mbt_fm F;
  double q0[MAXV] = {0}, v0[MAXV] = {0}, tau[MAXV] = {0}, erk[2];
  load_arm("examples/flexible_arm_nodal.mbd", &F, q0, v0);
  double wmax = omega_max(&F);
  static const double dts[] = {1e-4, 5e-5};
  print_message("  flexible_arm_nodal, zero gravity, modal damping, 0.5 s of RK4, omega_max "
                "%.1f rad/s\n    dt      E(0) - E(T) [J]  int D (RK4)     rel. err  "
                "int D (trap.)   rel. err  corrected  bound\n", wmax);
  for (int k = 0; k < 2; k++) {
    double h = dts[k];
    run r = simulate(&F, q0, v0, tau, h);
    double dE = r.E0 - r.E1, bound = drift_bound(wmax, h) * r.E0;
    double etr = fabs(dE - r.Wtrap) / dE, ecor = fabs(dE - r.Wtrap + h * h / 12 * r.df) / dE;
    assert_true(dE > 0);
    erk[k] = fabs(dE - r.Wrk) / dE;
    print_message("    %.0e   %.12f   %.12f  %.2e  %.12f  %.2e  %.2e   %.2e\n", h, dE, r.Wrk,
                  erk[k], r.Wtrap, etr, ecor, bound / dE);
    assert_true(erk[k] * dE < bound);
    (void)ecor; /* printed: its correction covers the damping alone, not the b_η⁰ load */
  }
  assert_rk4_order(erk, 2);
  mbt_fm_free(&F);
}

/* A constant shoulder torque τ₀ on the undamped arm: E(T) − E(0) = ∫ τᵀ v dt − ∫ η̇ᵀ b_η⁰ dt
 * = τ₀ Δθ − W,
 * so the balance closes to the integrator's error (the bound above, on the larger energy),
 * falling at its order. */
void test_flex_work(void **state) {
  (void)state;
  mbt_fm F;
  double q0[MAXV] = {0}, v0[MAXV] = {0}, tau[MAXV] = {0}, err[2];
  load_arm("examples/flexible_arm.mbd", &F, q0, v0);
  double wmax = omega_max(&F);
  tau[0] = 2.5;
  static const double dts[] = {1e-4, 5e-5};
  print_message("  flexible_arm, shoulder torque 2.5 N m, 0.5 s of RK4\n"
                "    dt      E(T) - E(0) [J]  tau dtheta [J]  |diff| [J]  bound [J]\n");
  for (int k = 0; k < 2; k++) {
    run r = simulate(&F, q0, v0, tau, dts[k]);
    double dE = r.E1 - r.E0, W = tau[0] * r.dtheta - r.Wrk;
    double bound = drift_bound(wmax, dts[k]) * fmax(r.E0, r.E1);
    err[k] = fabs(dE - W);
    print_message("    %.0e   %.12f   %.12f  %.3e   %.3e\n", dts[k], dE, W, err[k], bound);
    assert_true(err[k] < bound);
  }
  assert_rk4_order(err, 2);
  mbt_fm_free(&F);
}

/* The power balance at an instant, without an integrator: d/dt ½ vᵀ M v = vᵀ M v̇ + ½ vᵀ Ṁ v and
 * M v̇ = τ − C(q, v) v − K η − D η̇ (zero gravity) give d/dt (T + V) = τᵀ v − η̇ᵀ D η̇ iff
 * vᵀ (½ Ṁ − C) v = 0, the property of the velocity terms of any Lagrangian system (Featherstone,
 * "Rigid Body Dynamics Algorithms", 2008, §2.15, Ṁ − 2C skew-symmetric), with quasi-velocities
 * as well. C v = rnea(q, v, 0) − rnea(q, 0, 0) − D η̇ − b⁰ (the velocity-product load of the
 * undeformed bodies on the modes, which does work: mbt_q_load); Ṁ = d/dt M(q ⊕ t v) by central
 * differences of step ε = 1e-5 (truncation ε²/6 |d³M/dt³|, rounding ε_mach |M|/ε: both below
 * 1e-9 of the terms): the two sides agree to 1e-8 of Σ|v_r| (|Ṁ_rc|/2 |v_c| + |(Cv)_r|), plus
 * the rounding of the subtraction, 64 ε_mach Σ|v_r| |rnea(q, 0, 0)_r| (K η is large). */
static void power_balance(const char *relpath, unsigned long long seed) {
  mbt_fm F;
  mbt_fm_file(relpath, &F);
  for (int k = 0; k < 3; k++) F.model->gravity[k] = 0;
  int n = F.nv;
  const double eps = 1e-5;
  double worst = 0;
  for (int trial = 0; trial < 10; trial++) {
    double q[MAXV], v[MAXV], qp[MAXV], qm[MAXV], Mp[MAXV * MAXV], Mm[MAXV * MAXV], r1[MAXV], r0[MAXV], Dv[MAXV] = {0}, quad = 0, vCv = 0, scale = 0,
           round = 0;
    assert_true(n <= MAXV && F.nq <= MAXV);
    mbt_random_q(F.model, &seed, 0.05, q);
    mbt_random_v(n, &seed, v);
    assert_int_equal(mb_integrate(F.model, q, v, eps, qp), MB_OK);
    assert_int_equal(mb_integrate(F.model, q, v, -eps, qm), MB_OK);
    assert_int_equal(mb_crba(F.model, &F.ws, qp, Mp), MB_OK);
    assert_int_equal(mb_crba(F.model, &F.ws, qm, Mm), MB_OK);
    assert_int_equal(mb_rnea(F.model, &F.ws, q, v, NULL, NULL, r1), MB_OK);
    assert_int_equal(mb_rnea(F.model, &F.ws, q, NULL, NULL, NULL, r0), MB_OK);
    double bq[MAXV];
    mbt_q_load(&F, q, v, bq);
    for (int i = 1, e2 = 0; i <= F.model->nb; i++) { /* D η̇ */
      int nm = mb_body_nm(F.model, i), o = mbt_mode_iv(F.model, i);
      for (int r = 0; r < nm; r++)
        for (int c = 0; c < nm; c++) Dv[o + r] += F.model->flex->D[e2 + nm * r + c] * v[o + c];
      e2 += nm * nm;
    }
    for (int r = 0; r < n; r++) {
      double cv = r1[r] - r0[r] - Dv[r] - bq[r];
      vCv += v[r] * cv, scale += fabs(v[r] * cv), round += 64 * DBL_EPSILON * fabs(v[r] * r0[r]);
      for (int c = 0; c < n; c++) {
        double md = (Mp[n * r + c] - Mm[n * r + c]) / (2 * eps);
        quad += 0.5 * v[r] * md * v[c], scale += 0.5 * fabs(v[r] * md * v[c]);
      }
    }
    if (!(fabs(quad - vCv) <= 1e-8 * scale + round))
      fail_msg("%s: v'Mdot v/2 = %.12e, v'Cv = %.12e", relpath, quad, vCv);
    worst = fmax(worst, fabs(quad - vCv) / (1e-8 * scale + round));
  }
  print_message("  %-34s |v'(Mdot/2 - C)v| at most %.2f of the tolerance\n", relpath, worst);
  mbt_fm_free(&F);
}

void test_flex_power(void **state) {
  (void)state;
  power_balance("examples/flexible_arm.mbd", 31);
  power_balance("examples/flexible_arm_nodal.mbd", 32);
  power_balance("tests/models/flex/chain3.mbd", 33);
}
