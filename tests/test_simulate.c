/* test_simulate.c — integration with error control (runtime/simulate.c, mb_simulate). References:
 * the closed form x = A cos ωt of a mass on a linear spring (and ∫ x² dt for a quadrature); the
 * conservation of energy and of momentum by a torque-free free body, and a run of the same pair
 * at steps 4 to 16 times shorter than the finest measured; the constraint residual φ(q) of a
 * closed chain (mb_loop_residual); the counts of steps and calls the integrator's definition
 * implies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_loopmech.h"
#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbt_alloc.h"

/* ------------------------------------------------------------------------------------ helpers */

/* A model, its workspace and the run's callbacks' context. */
typedef struct rig {
  mbt_tree *t;
  const mb_model *m;
  mb_workspace ws;
  double *wbuf, *scratch;
  double k;           /* the spring's stiffness (the spring model) */
  lsys *ls;           /* the loops (the closed chains), or NULL */
  double fail_after;  /* accel fails for t > fail_after (> 0) */
  int stop_at, reset; /* event: MB_SIM_STOP at call stop_at; MB_SIM_RESET at every call */
  int nevent;         /* event calls */
  double t_ev, q_ev[8], v_ev[8];
  double worst_phi;          /* the largest max |φ_r| the event saw */
  double e0, max_ke, max_de; /* closed chains: E(0), max ½ vᵀ M v, max |E − E(0)| (the event) */
} rig;

static void rig_init(rig *r, mbt_tree *t) {
  memset(r, 0, sizeof *r);
  r->t = t, r->m = &t->model;
  r->wbuf = mbt_workspace_new(r->m, &r->ws);
  r->scratch = malloc(mb_simulate_scratch_size(r->m));
}

static void rig_free(rig *r) {
  free(r->wbuf), free(r->scratch);
  if (r->ls) lsys_free(r->ls);
  mbt_tree_free(r->t);
}

/* q̈ by mb_aba with τ = −k q (the spring model: k > 0) or 0. */
static int accel_aba(void *c, double t, const double *q, const double *v, double *qdd) {
  rig *r = c;
  double tau[64] = {0};
  if (r->fail_after > 0 && t > r->fail_after) return MB_ENUMERIC;
  if (r->k > 0) tau[0] = -r->k * q[0];
  return mb_aba(r->m, &r->ws, q, v, tau, NULL, qdd);
}

/* q̈ of the closed chain, τ = 0 (mb_fd_loops). */
static int accel_loops(void *c, double t, const double *q, const double *v, double *qdd) {
  rig *r = c;
  double tau[MAXV] = {0};
  (void)t;
  return mb_fd_loops(r->m, &r->ls->L, &r->ws, &r->ls->lw, q, v, tau, qdd, NULL);
}

static int project_loops(void *c, double t, double *q, double *v) {
  rig *r = c;
  (void)t;
  int rc = mb_project_q(r->m, &r->ls->L, &r->ws, &r->ls->lw, q);
  return rc ? rc : mb_project_v(r->m, &r->ls->L, &r->ws, &r->ls->lw, q, v);
}

/* The observer: counts, records the state, checks φ on a closed chain, stops or resets. */
static int event(void *c, double t, double *q, double *v) {
  rig *r = c;
  r->nevent++;
  r->t_ev = t;
  memcpy(r->q_ev, q, sizeof *q * (size_t)(r->m->nq < 8 ? r->m->nq : 8));
  memcpy(r->v_ev, v, sizeof *v * (size_t)(r->m->nv < 8 ? r->m->nv : 8));
  if (r->ls) {
    double phi[MAXC], e[2];
    resid(r->ls, q, phi);
    r->worst_phi = fmax(r->worst_phi, maxabs(phi, r->ls->L.nc));
    assert_int_equal(mb_energy(r->m, &r->ws, q, v, e), MB_OK);
    r->max_ke = fmax(r->max_ke, e[0]);
    r->max_de = fmax(r->max_de, fabs(e[0] + e[1] - r->e0));
  }
  if (r->stop_at && r->nevent == r->stop_at) return MB_SIM_STOP;
  return r->reset ? MB_SIM_RESET : MB_OK;
}

/* ẇ = x² (the spring model's quadrature). */
static int quad_x2(void *c, double t, const double *q, const double *v, double *dw) {
  (void)c, (void)t, (void)v;
  dw[0] = q[0] * q[0];
  return 0;
}

/* The least-squares slope of log err against log h. */
static double slope(const double *h, const double *err, int n) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    double x = log(h[i]), y = log(err[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* ---------------------------------------------------------------------- (a) spring, closed form */

/* A 2 kg body on a prismatic joint along x, no gravity; with τ = −k x (k = 18), ω = 3 rad/s. */
#define SPRING_MASS 2.0
#define SPRING_K 18.0
static mbt_tree *spring_tree(void) {
  double x[3] = {1, 0, 0}, c[3] = {0.1, 0.2, 0}, Ic[6] = {0.01, 0.02, 0.03, 0, 0, 0};
  mbt_tree *t = mbt_tree_new(1);
  mbt_tree_joint(t, 1, 0, MB_JOINT_PRISMATIC, x, NULL, NULL);
  mbt_tree_body(t, 1, SPRING_MASS, c, Ic);
  t->model.gravity[2] = 0.0;
  mbt_tree_finish(t);
  return t;
}

/* From x(0) = 1, v(0) = 0 to T: the run's error against x = cos ωt, v = −ω sin ωt (in x units). */
static double spring_run(rig *r, const mb_sim_options *o, double T, mb_sim_stats *st, int *rc) {
  mb_sim_system sys = {accel_aba, NULL, NULL, NULL, 0, r};
  double q[1] = {1.0}, v[1] = {0.0}, w = sqrt(SPRING_K / SPRING_MASS);
  *rc = mb_simulate(r->m, &sys, o, 0.0, T, q, v, NULL, r->scratch, st);
  double t = st->t;
  return fmax(fabs(q[0] - cos(w * t)), fabs(v[0] + w * sin(w * t)) / w);
}

/* Fixed steps (hmin = hmax = T/N): N steps exactly, 1 + 6 N calls, and the global error falls as
 * h⁵ (the pair's order 5: measured slope 5.11); adaptive, rtol = atol = 1e-6, 1e-8, 1e-10: the
 * error at T = 5 s (2.4 periods, 60 to 377 steps) within 10 times the tolerance (the control
 * bounds each step's local error; the global error adds them up: measured 4.6, 3.6 and 3.2 times),
 * and tighter tolerances cost more calls and give smaller errors. */
static void test_spring_order(void **state) {
  (void)state;
  rig r;
  rig_init(&r, spring_tree());
  r.k = SPRING_K;
  const double T = 2.0;
  double h[4], err[4];
  for (int i = 0; i < 4; i++) {
    int n = 8 << i, rc;
    mb_sim_stats st;
    h[i] = T / n;
    mb_sim_options o = {1e-6, 1e-9, 0.0, h[i], h[i], 0};
    err[i] = spring_run(&r, &o, T, &st, &rc);
    assert_int_equal(rc, MB_OK);
    assert_int_equal(st.accepted, n);
    assert_int_equal(st.rejected, 0);
    assert_int_equal(st.naccel, 1 + 6 * n); /* FSAL: the first stage once, then 6 a step */
    MBT_ASSERT_NEAR1(st.t, T, 0.0);
  }
  double p = slope(h, err, 4);
  print_message("spring, fixed steps: errors %.2e %.2e %.2e %.2e, slope %.3f\n", err[0], err[1],
                err[2], err[3], p);
  if (!(p >= 4.6 && p <= 5.4)) fail_msg("order %.3f not in [4.6, 5.4]", p);
  long prev_calls = 0;
  double prev_err = 1.0;
  for (int i = 0; i < 3; i++) {
    double tol = 1e-6 * pow(1e-2, i);
    mb_sim_options o = {tol, tol, 0.0, 0.0, 0.0, 0};
    mb_sim_stats st;
    int rc;
    double e = spring_run(&r, &o, 5.0, &st, &rc);
    assert_int_equal(rc, MB_OK);
    print_message("spring, tol %.0e: error %.2e, %ld steps, %ld rejected, %ld calls\n", tol, e,
                  st.accepted, st.rejected, st.naccel);
    if (!(e <= 10 * tol)) fail_msg("error %.3e above 10 x the tolerance %.0e", e, tol);
    assert_true(e < prev_err && st.naccel > prev_calls);
    prev_err = e, prev_calls = st.naccel;
  }
  rig_free(&r);
}

/* ------------------------------------------------------------------- (b) free body, manifolds */

/* A free body (floating joint, asymmetric inertia, its centre of mass off the body origin), no
 * gravity, spinning about a tilted axis near the unstable middle axis. */
static mbt_tree *free_body(void) {
  double c[3] = {0.1, -0.05, 0.2}, Ic[6] = {0.2, 0.5, 0.9, 0.02, -0.01, 0.03};
  mbt_tree *t = mbt_tree_new(1);
  mbt_tree_joint(t, 1, 0, MB_JOINT_FLOATING, NULL, NULL, NULL);
  mbt_tree_body(t, 1, 3.0, c, Ic);
  t->model.gravity[2] = 0.0;
  mbt_tree_finish(t);
  return t;
}

static const double FB_Q0[7] = {0.1, 0.2, -0.3, 0.1, -0.2, 0.3, 0.927361849549570};
static const double FB_V0[6] = {0.3, -0.2, 0.1, 0.5, 3.0, -0.7};

/* The distance between two states: |q1 ⊖ q0| and |v1 − v0|, max norms. */
static double state_dist(const mb_model *m, const double *q0, const double *v0, const double *q1,
                         const double *v1) {
  double d[64], e = 0.0;
  assert_int_equal(mb_difference(m, q0, q1, d), MB_OK);
  for (int k = 0; k < m->nv; k++) e = fmax(e, fmax(fabs(d[k]), fabs(v1[k] - v0[k])));
  return e;
}

/* Fixed steps of T/N: q, v after T = 2 s. */
static void fixed_run(rig *r, int n, const double *q0, const double *v0, double *q, double *v) {
  mb_sim_system sys = {accel_aba, NULL, NULL, NULL, 0, r};
  mb_sim_options o = {1e-6, 1e-9, 0.0, 2.0 / n, 2.0 / n, 0};
  mb_sim_stats st;
  memcpy(q, q0, sizeof *q * (size_t)r->m->nq);
  memcpy(v, v0, sizeof *v * (size_t)r->m->nv);
  assert_int_equal(mb_simulate(r->m, &sys, &o, 0.0, 2.0, q, v, NULL, r->scratch, &st), MB_OK);
  assert_int_equal(st.accepted, n);
}

/* The order: the error at T of N = n0, 2 n0, 4 n0, 8 n0 fixed steps against N = nref (its own
 * error below 1e-3 of the finest's at the order 5) falls as h⁵: the slope of log error. */
static double order_on(rig *r, int n0, int nref, const double *q0, const double *v0,
                       const char *what) {
  double qr[64], vr[64], q[64], v[64], h[4], err[4];
  fixed_run(r, nref, q0, v0, qr, vr);
  for (int i = 0; i < 4; i++) {
    int n = n0 << i;
    fixed_run(r, n, q0, v0, q, v);
    h[i] = 2.0 / n, err[i] = state_dist(r->m, qr, vr, q, v);
  }
  double p = slope(h, err, 4);
  print_message("%s, fixed steps: errors %.2e %.2e %.2e %.2e, slope %.3f\n", what, err[0], err[1],
                err[2], err[3], p);
  return p;
}

/* Energy (mb_energy: ½ vᵀ M v) and momentum (mb_centroidal_momentum: the angular momentum about
 * the centre of mass and the linear momentum, world axes) conserved to 10 times the tolerance
 * 1e-9 over 2 s of tumbling (measured 4.4 and 5.8 times); the order ≥ 4.6 with fixed steps
 * (measured 5.04). With the tangent frozen (Θ̇ = v instead of Jr(Θ)⁻¹ v) the momentum drifts by
 * 4.6e-4 and the order falls to 2.0 (2.0 on the trees below too).
 * The same order on two random trees of 8 bodies under gravity, with revolute, prismatic,
 * helical, spherical, continuous, planar and cylindrical joints, one on a floating base
 * (measured 5.5 and 4.9). */
static void test_free_body(void **state) {
  (void)state;
  rig r;
  rig_init(&r, free_body());
  mb_sim_system sys = {accel_aba, NULL, NULL, NULL, 0, &r};
  double q[7], v[6], e0[2], e1[2], h0[6], h1[6];
  memcpy(q, FB_Q0, sizeof q), memcpy(v, FB_V0, sizeof v);
  assert_int_equal(mb_energy(r.m, &r.ws, q, v, e0), MB_OK);
  assert_int_equal(mb_centroidal_momentum(r.m, &r.ws, q, v, h0), MB_OK);
  const double tol = 1e-9;
  mb_sim_options o = {tol, tol, 0.0, 0.0, 0.0, 0};
  mb_sim_stats st;
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0.0, 2.0, q, v, NULL, r.scratch, &st), MB_OK);
  assert_int_equal(mb_energy(r.m, &r.ws, q, v, e1), MB_OK);
  assert_int_equal(mb_centroidal_momentum(r.m, &r.ws, q, v, h1), MB_OK);
  double de = fabs(e1[0] - e0[0]) / e0[0], dh = 0.0, hn = mbt_max_abs(h0, 6);
  for (int k = 0; k < 6; k++) dh = fmax(dh, fabs(h1[k] - h0[k]) / hn);
  print_message("free body, tol %.0e: %ld steps, %ld rejected, %ld calls; relative drift of "
                "the energy %.2e, of the momentum %.2e; |quaternion| - 1 = %.1e\n",
                tol, st.accepted, st.rejected, st.naccel, de, dh,
                sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]) - 1.0);
  if (!(de <= 10 * tol && dh <= 10 * tol))
    fail_msg("drift of energy %.2e, momentum %.2e > 10 x %.0e", de, dh, tol);
  double p = order_on(&r, 16, 2048, FB_Q0, FB_V0, "free body");
  if (!(p >= 4.6)) fail_msg("free body: order %.3f < 4.6", p);
  rig_free(&r);
  for (uint64_t seed = 1; seed <= 2; seed++) {
    mbt_rng g;
    mbt_rng_seed(&g, 300 + seed);
    rig_init(&r, mbt_randtree(seed, 8, (int)(seed % 2)));
    double q0[64], v0[64];
    mbt_rand_q(&g, r.m, q0);
    mbt_rand_vec(&g, r.m->nv, -1, 1, v0);
    p = order_on(&r, seed % 2 ? 32 : 64, 2048, q0, v0,
                 seed % 2 ? "random tree (floating)" : "random tree");
    if (!(p >= 4.6)) fail_msg("random tree %d: order %.3f < 4.6", (int)seed, p);
    rig_free(&r);
  }
}

/* --------------------------------------------------------------------- (c) closed loops */

/* The planar four-bar (rows x, y of its revolute loop) and a spatial chain of 5 revolutes closed
 * by a spherical loop, by mb_fd_loops with mb_project_q and mb_project_v after every step:
 * max |φ_r| ≤ 1e-10 after every accepted step (the projection's tolerance is 1e-12), and the
 * energy E = T + U (mb_energy) conserved to 10 times the tolerance of the largest kinetic energy
 * (the energy the motion exchanges; measured 1.2 times on both). */
static void loops_run(rig *r, double *q, double *v, double T) {
  mb_sim_system sys = {accel_loops, project_loops, event, NULL, 0, r};
  const double tol = 1e-8;
  mb_sim_options o = {tol, tol, 0.0, 0.0, 0.0, 0};
  mb_sim_stats st;
  double e0[2];
  assert_int_equal(project_loops(r, 0.0, q, v), MB_OK);
  assert_int_equal(mb_energy(r->m, &r->ws, q, v, e0), MB_OK);
  r->e0 = e0[0] + e0[1], r->max_ke = e0[0];
  assert_int_equal(mb_simulate(r->m, &sys, &o, 0.0, T, q, v, NULL, r->scratch, &st), MB_OK);
  double de = r->max_de / r->max_ke;
  print_message("loops: %ld steps, %ld rejected, %ld calls; max |phi| %.1e; max |E - E(0)| %.2e "
                "of the largest kinetic energy %.3g J\n",
                st.accepted, st.rejected, st.naccel, r->worst_phi, de, r->max_ke);
  assert_int_equal(r->nevent, st.accepted);
  if (!(r->worst_phi <= 1e-10)) fail_msg("max |phi| %.2e > 1e-10", r->worst_phi);
  if (!(de <= 10 * tol)) fail_msg("energy drift %.2e > 10 x %.0e", de, tol);
}

static void test_loops(void **state) {
  (void)state;
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  rig r;
  rig_init(&r, fourbar_tree(&f));
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  r.ls = lsys_new(r.m, &l, 1, xy, 2);
  double q[14], v[14] = {6.0, 0.0, 0.0};
  assert_int_equal(fourbar_q(&f, 0.4, q), 0);
  loops_run(&r, q, v, 2.0);
  rig_free(&r);
  mbt_rng g;
  mbt_rng_seed(&g, 91);
  rig_init(&r, chain_new(&g, 5, 1));
  mbt_rand_q(&g, r.m, q);
  l = loop_rand(&g, r.m, q, MB_LOOP_SPHERICAL, 5, 0);
  r.ls = lsys_new(r.m, &l, 1, NULL, 0);
  mbt_rand_vec(&g, 5, -1, 1, v);
  loops_run(&r, q, v, 2.0);
  rig_free(&r);
}

/* ---------------------------------------------------------------------- (d) events, failures */

/* The event stops the run at the step it asks (the fifth: 5 steps, its t and state returned);
 * MB_SIM_RESET costs one call a step; the quadrature ∫ x² dt against its closed form
 * t/2 + sin 2ωt / 4ω; an accel failing beyond t = 1 stops the run with its status at the last
 * accepted step, just before t = 1, on the closed form. */
static void test_events(void **state) {
  (void)state;
  rig r;
  rig_init(&r, spring_tree());
  r.k = SPRING_K;
  const double w = sqrt(SPRING_K / SPRING_MASS);
  mb_sim_system sys = {accel_aba, NULL, event, NULL, 0, &r};
  mb_sim_options o = {1e-8, 1e-8, 0.0, 0.0, 0.0, 0};
  mb_sim_stats st;
  double q[1] = {1.0}, v[1] = {0.0};
  r.stop_at = 5;
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0.0, 5.0, q, v, NULL, r.scratch, &st), MB_SIM_STOP);
  assert_int_equal(st.accepted, 5);
  assert_int_equal(r.nevent, 5);
  assert_true(st.t == r.t_ev && q[0] == r.q_ev[0] && v[0] == r.v_ev[0] && st.t < 5.0);
  MBT_ASSERT_NEAR1(q[0], cos(w * st.t), 1e-7);
  /* resets: one more call a step; the motion unchanged (the state is) */
  mb_sim_stats s0, s1;
  q[0] = 1.0, v[0] = 0.0, r.stop_at = 0, r.nevent = 0;
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0.0, 2.0, q, v, NULL, r.scratch, &s0), MB_OK);
  double x0 = q[0];
  q[0] = 1.0, v[0] = 0.0, r.reset = 1;
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0.0, 2.0, q, v, NULL, r.scratch, &s1), MB_OK);
  assert_int_equal(s1.accepted, s0.accepted);
  assert_int_equal(s1.naccel, s0.naccel + s1.accepted);
  MBT_ASSERT_NEAR1(q[0], x0, 0.0);
  r.reset = 0;
  /* the quadrature */
  mb_sim_system sq = {accel_aba, NULL, NULL, quad_x2, 1, &r};
  double wq = 0.0;
  q[0] = 1.0, v[0] = 0.0;
  assert_int_equal(mb_simulate(r.m, &sq, &o, 0.0, 2.0, q, v, &wq, r.scratch, &st), MB_OK);
  MBT_ASSERT_NEAR1(wq, 1.0 + sin(4.0 * w) / (4.0 * w), 1e-7);
  /* an accel failing beyond t = 1 */
  q[0] = 1.0, v[0] = 0.0, r.fail_after = 1.0;
  int rc = mb_simulate(r.m, &sys, &o, 0.0, 5.0, q, v, NULL, r.scratch, &st);
  print_message("events: failing beyond t = 1: status %d at t = 1 - %.1e after %ld steps, %ld "
                "rejected\n",
                rc, 1.0 - st.t, st.accepted, st.rejected);
  assert_int_equal(rc, MB_ENUMERIC);
  assert_true(st.t <= 1.0 && st.t > 1.0 - 1e-9 && st.t == r.t_ev);
  MBT_ASSERT_NEAR1(q[0], cos(w * st.t), 1e-7);
  rig_free(&r);
}

/* Deterministic and allocation-free: two runs of the tumbling free body (the SE(3) stages) and of
 * the four-bar with its projections give the same bits and the same counts, and no allocator
 * call is made during them (the wrapping itself counted on a known malloc and free). */
static void test_deterministic_noalloc(void **state) {
  (void)state;
  void *volatile p;
  mbt_alloc_calls = 0, mbt_alloc_counting = 1;
  p = malloc(16);
  free(p);
  mbt_alloc_counting = 0;
  assert_int_equal(mbt_alloc_calls, 2);
  rig r;
  rig_init(&r, free_body());
  mb_sim_system sys = {accel_aba, NULL, NULL, NULL, 0, &r};
  mb_sim_options o = {1e-8, 1e-8, 0.0, 0.0, 0.0, 0};
  double q[2][7], v[2][6];
  mb_sim_stats st[2];
  mbt_alloc_calls = 0, mbt_alloc_counting = 1;
  for (int k = 0; k < 2; k++) {
    memcpy(q[k], FB_Q0, sizeof q[k]), memcpy(v[k], FB_V0, sizeof v[k]);
    assert_int_equal(mb_simulate(r.m, &sys, &o, 0.0, 1.0, q[k], v[k], NULL, r.scratch, &st[k]),
                     MB_OK);
  }
  mbt_alloc_counting = 0;
  assert_int_equal(mbt_alloc_calls, 0);
  assert_memory_equal(q[0], q[1], sizeof q[0]);
  assert_memory_equal(v[0], v[1], sizeof v[0]);
  assert_true(st[0].naccel == st[1].naccel && st[0].accepted == st[1].accepted);
  rig_free(&r);
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  rig_init(&r, fourbar_tree(&f));
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  r.ls = lsys_new(r.m, &l, 1, xy, 2);
  mb_sim_system sl = {accel_loops, project_loops, NULL, NULL, 0, &r};
  mbt_alloc_calls = 0, mbt_alloc_counting = 1;
  for (int k = 0; k < 2; k++) {
    assert_int_equal(fourbar_q(&f, 0.4, q[k]), 0);
    v[k][0] = 6.0, v[k][1] = v[k][2] = 0.0;
    assert_int_equal(mb_simulate(r.m, &sl, &o, 0.0, 1.0, q[k], v[k], NULL, r.scratch, &st[k]),
                     MB_OK);
  }
  mbt_alloc_counting = 0;
  assert_int_equal(mbt_alloc_calls, 0);
  assert_memory_equal(q[0], q[1], 3 * sizeof q[0][0]);
  assert_memory_equal(v[0], v[1], 3 * sizeof v[0][0]);
  rig_free(&r);
}

/* ------------------------------------------------------------------------- (e) bad arguments */

/* Every bad argument gives MB_EINVAL and leaves q, v as they were. */
static void test_einval(void **state) {
  (void)state;
  rig r;
  rig_init(&r, spring_tree());
  r.k = SPRING_K;
  mb_sim_system sys = {accel_aba, NULL, NULL, NULL, 0, &r}, s2;
  const mb_sim_options good = {1e-6, 1e-9, 0.0, 0.0, 0.0, 0};
  mb_sim_options o;
  double q[1] = {1.0}, v[1] = {0.5}, w[1] = {0};
#define BAD(field, value)                                                                          \
  do {                                                                                             \
    o = good, o.field = value;                                                                     \
    assert_int_equal(mb_simulate(r.m, &sys, &o, 0.0, 1.0, q, v, NULL, r.scratch, NULL),            \
                     MB_EINVAL);                                                                   \
  } while (0)
  BAD(rtol, -1e-6);
  BAD(atol, NAN);
  BAD(rtol, INFINITY);
  o = good, o.rtol = 0.0, o.atol = 0.0;
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0, 1, q, v, NULL, r.scratch, NULL), MB_EINVAL);
  BAD(h0, -0.1);
  BAD(hmin, -0.1);
  BAD(hmax, NAN);
  o = good, o.hmin = 0.2, o.hmax = 0.1;
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0, 1, q, v, NULL, r.scratch, NULL), MB_EINVAL);
  BAD(max_steps, -1);
  o = good;
  assert_int_equal(mb_simulate(NULL, &sys, &o, 0, 1, q, v, NULL, r.scratch, NULL), MB_EINVAL);
  assert_int_equal(mb_simulate(r.m, NULL, &o, 0, 1, q, v, NULL, r.scratch, NULL), MB_EINVAL);
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0, 1, NULL, v, NULL, r.scratch, NULL), MB_EINVAL);
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0, 1, q, NULL, NULL, r.scratch, NULL), MB_EINVAL);
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0, 1, q, v, NULL, NULL, NULL), MB_EINVAL);
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0, 1, q, v, NULL, (char *)r.scratch + 4, NULL),
                   MB_EINVAL);
  assert_int_equal(mb_simulate(r.m, &sys, &o, 1, 0, q, v, NULL, r.scratch, NULL), MB_EINVAL);
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0, NAN, q, v, NULL, r.scratch, NULL), MB_EINVAL);
  s2 = sys, s2.accel = NULL;
  assert_int_equal(mb_simulate(r.m, &s2, &o, 0, 1, q, v, NULL, r.scratch, NULL), MB_EINVAL);
  s2 = sys, s2.nw = 1; /* no quad */
  assert_int_equal(mb_simulate(r.m, &s2, &o, 0, 1, q, v, w, r.scratch, NULL), MB_EINVAL);
  s2.quad = quad_x2; /* no w */
  assert_int_equal(mb_simulate(r.m, &s2, &o, 0, 1, q, v, NULL, r.scratch, NULL), MB_EINVAL);
  s2.nw = MB_SIM_MAX_QUAD + 1;
  assert_int_equal(mb_simulate(r.m, &s2, &o, 0, 1, q, v, w, r.scratch, NULL), MB_EINVAL);
  assert_true(q[0] == 1.0 && v[0] == 0.5);
  /* the limits that are not errors: tend = t0 (nothing done), max_steps reached */
  mb_sim_stats st;
  assert_int_equal(mb_simulate(r.m, &sys, NULL, 0.5, 0.5, q, v, NULL, r.scratch, &st), MB_OK);
  assert_true(q[0] == 1.0 && v[0] == 0.5 && st.naccel == 0 && st.t == 0.5);
  o = good, o.max_steps = 3;
  assert_int_equal(mb_simulate(r.m, &sys, &o, 0, 10, q, v, NULL, r.scratch, &st), MB_SIM_MAXSTEPS);
  assert_true(st.accepted == 3 && st.t < 10.0);
  assert_int_equal(mb_simulate_scratch_size(NULL), 0);
  rig_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spring_order),
      cmocka_unit_test(test_free_body),
      cmocka_unit_test(test_loops),
      cmocka_unit_test(test_events),
      cmocka_unit_test(test_deterministic_noalloc),
      cmocka_unit_test(test_einval),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
