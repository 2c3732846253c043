/* test_rcr.c — forward dynamics by recursive coordinate reduction (runtime/rcr.c, rcr_plan.c;
 * mb.h "recursive coordinate reduction"): mb_rcr, mb_rcr_select and mb_rcr_pivots on the loop
 * models of the repository, loaded from their .mbd files (mbt_loopmodel.h).
 *
 * References, one per test (stated again at each):
 *   - mb_fd_loops (Lagrange multipliers, runtime/fd_loops.c): on the constraint manifold both solve
 *     the same equations, so their q̈ agree at every assembled state, for every regular selection;
 *     with rotor inertias (mb_model.armature) too, which mb_fd_loops carries in its ABA's D;
 *   - the five-bar of Critchley & Anderson (examples/five_bar.mbd) released from rest: the
 *     trajectory of mb_fd_loops (which has no formulation singularity); bar 2 is vertical
 *     (cos(q1 + q2) = 0) first at t = 0.8103 s (docs/loops.md, examples/sim/five_bar_sim.c), where
 *     the paper's dependents q2, q3 turn singular (their rows' determinant is L cos(q1 + q2));
 *   - the contract of mb.h: the selection rules (a group's dependents as many as its rows, kept
 *     columns never taken, the first selection with every ratio ≥ MB_RCR_SWITCH used), the pivot
 *     ratios in (0, 1], MB_EINVAL for invalid arguments, MB_ENUMERIC where no selection is
 *     regular; the groups are recomputed here from their definition (loops sharing a joint);
 *   - the plan of coupled loops (rcr_internal.h): loops that share only head joints stay apart
 *     (tests/models/nested_loops.mbd: two groups, two open bases on the shared bodies), more than
 *     MB_RCR_MAX_OPEN heads on one body are grouped (tests/models/nested_fan.mbd). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_testutil.h"
#include "mbt_loopsys.h"
#include "rcr_internal.h"

#define PI 3.14159265358979323846
#define MAXV 64 /* every model here has fewer coordinates, rows and bodies */

typedef mbt_rng rng;
typedef mbt_loopsys sys;
#define NSTATES 100

static const char *const models[] = {
    "examples/five_bar.mbd",          "examples/quarter_car.mbd",
    "tests/models/four_bar.mbd",      "tests/models/slider_crank.mbd",
    "tests/models/spatial_chain.mbd", "tests/models/rssr.mbd",
    "tests/models/two_loops.mbd",     "tests/models/loop_kinds.mbd",
    "tests/models/loop_types.mbd",    "tests/models/nested_loops.mbd",
    "tests/models/nested_fan.mbd",    "tests/models/shared_spine.mbd",
    "tests/models/ladder.mbd",        "tests/models/loop_tree.mbd",
    "tests/models/hung_loops.mbd",
};
#define NMODELS ((int)(sizeof models / sizeof models[0]))

/* ------------------------------------------------------------------------------------ helpers */

static sys *sys_open(const char *rel) {
  const char *src = getenv("MBDC_SOURCE_DIR");
  char path[4096];
  if (!src) fail_msg("MBDC_SOURCE_DIR is not set (run the test with ctest)");
  snprintf(path, sizeof path, "%s/%s", src, rel);
  sys *s = calloc(1, sizeof *s);
  assert_non_null(s);
  if (mbt_loopsys_open(path, s)) fail_msg("%s: cannot load", path);
  assert_true(s->nq <= MAXV && s->nv <= MAXV && s->m->nb < MAXV && s->L->nloops < MAXV);
  assert_true(s->nc > 0 && s->nc <= MAXV);
  return s;
}

static void sys_close(sys *s) {
  mbt_loopsys_close(s);
  free(s);
}

/* A random assembled state (the recipe of test_simbody.cpp): q = q0 ⊕ dv, dv uniform in ±0.4,
 * projected onto φ = 0; v uniform in ±1 projected onto K v = 0; τ uniform in ±2. */
static void assembled_state(sys *s, rng *g, double *q, double *v, double *tau) {
  if (mbt_loopsys_state(s, g, 0.4, q, v, tau)) fail_msg("no assembled state found in 100 draws");
}

/* max |a − ref| / max |ref| */
static double rel_err(const double *a, const double *ref, int n) {
  size_t w;
  return mbt_max_diff(a, ref, (size_t)n, &w) / fmax(mbt_max_abs(ref, (size_t)n), 1e-300);
}

/* mb_rcr's q̈ against mb_fd_loops' at (q, v, τ): the relative error; *used as mb_rcr's. */
static double rcr_vs_fd(sys *s, int nsel, const int *dep, const double *q, const double *v,
                        const double *tau, int *used) {
  double ref[MAXV], qdd[MAXV];
  assert_int_equal(mb_fd_loops(s->m, s->L, &s->ws, &s->lw, q, v, tau, ref, NULL), MB_OK);
  int rc = mb_rcr(s->m, s->L, &s->ws, &s->lw, nsel, dep, q, v, tau, qdd, used);
  if (rc != MB_OK) fail_msg("mb_rcr: %d (nsel %d, dep[0] %d)", rc, nsel, dep[0]);
  return rel_err(qdd, ref, s->nv);
}

/* The group of every velocity column (gcol[nv], −1: on no loop's path) and the kept rows of every
 * group (grows[nloops]), from mb.h's definition: a loop's joints are those on the paths from its
 * bodies a and b to their common ancestor; loops with kept rows that share a joint form a group.
 * A group is named by one of its loops. */
static void col_groups(const sys *s, int *gcol, int *grows) {
  const mb_model *m = s->m;
  const mb_loops *L = s->L;
  int gl[MAXV], owner[MAXV + 1];
  for (int l = 0; l < L->nloops; l++) gl[l] = -1, grows[l] = 0;
  for (int r = 0; r < L->nc; r++) gl[L->row[r] / MB_LOOP_MAX_ROWS] = L->row[r] / MB_LOOP_MAX_ROWS;
  for (int i = 0; i <= m->nb; i++) owner[i] = -1;
  for (int l = 0; l < L->nloops; l++) {
    if (gl[l] < 0) continue;
    int a = L->loop[l].a, b = L->loop[l].b, c = a, d = b;
    while (c != d) c > d ? (c = m->parent[c]) : (d = m->parent[d]);
    for (int side = 0; side < 2; side++)
      for (int x = side ? b : a; x != c; x = m->parent[x]) {
        if (owner[x] >= 0 && gl[owner[x]] != gl[l]) { /* merge: relabel l's group */
          int from = gl[l], to = gl[owner[x]];
          for (int k = 0; k < L->nloops; k++)
            if (gl[k] == from) gl[k] = to;
        }
        owner[x] = l;
      }
  }
  for (int r = 0; r < L->nc; r++) grows[gl[L->row[r] / MB_LOOP_MAX_ROWS]]++;
  for (int i = 1; i <= m->nb; i++)
    for (int j = 0; j < mb_joint_nv(m->jtype[i]); j++)
      gcol[m->iv[i] + j] = owner[i] >= 0 ? gl[owner[i]] : -1;
}

/* A selection as mb.h requires: nc distinct columns in range, as many in each group as its rows. */
static void check_selection(const sys *s, const int *dep, const char *what) {
  int gcol[MAXV], grows[MAXV], count[MAXV] = {0};
  col_groups(s, gcol, grows);
  for (int k = 0; k < s->nc; k++) {
    if (dep[k] < 0 || dep[k] >= s->nv) fail_msg("%s: dep[%d] = %d out of range", what, k, dep[k]);
    for (int j = 0; j < k; j++)
      if (dep[j] == dep[k]) fail_msg("%s: column %d twice", what, dep[k]);
    if (gcol[dep[k]] < 0) fail_msg("%s: column %d on no loop", what, dep[k]);
    count[gcol[dep[k]]]++;
  }
  for (int l = 0; l < s->L->nloops; l++)
    if (count[l] != grows[l])
      fail_msg("%s: group %d has %d dependents, %d rows", what, l, count[l], grows[l]);
}

/* The selection's smallest pivot ratio at q (mb_rcr_pivots), with the ratios checked in (0, 1]. */
static double min_ratio(sys *s, const double *q, const int *dep) {
  double ratio[MAXV], lo = -1, lo2 = INFINITY;
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q, dep, ratio, &lo), MB_OK);
  for (int k = 0; k < s->nc; k++) {
    if (!(ratio[k] >= 0.0 && ratio[k] <= 1.0 + 1e-15)) fail_msg("ratio[%d] = %g", k, ratio[k]);
    lo2 = fmin(lo2, ratio[k]);
  }
  assert_true(lo == lo2);
  return lo;
}

/* ------------------------------------------------------------------ agreement with mb_fd_loops */

/* One model: the selections from the chain's end and start at q0, each alone and both in order,
 * against mb_fd_loops on NSTATES random assembled states: both in order (mb_rcr's rule) and each
 * alone where its ratios are ≥ MB_RCR_SWITCH to 1e-10; each alone below the switch within
 * error × ratio ≤ 1e-12 (an ill-conditioned selection, which mb_rcr uses only as a last resort;
 * an empirical margin over the 1.9e-13 measured, not a bound: the error follows the condition of
 * the reduced mass matrix, docs/loops.md "Accuracy"). Also the selection rule: where the first selection's ratios are all
 * ≥ MB_RCR_SWITCH, it is the one used. */
static void agreement(const char *rel, uint64_t seed) {
  sys *s = sys_open(rel);
  int dep[2 * MAXV], used = -2, below = 0;
  double q[MAXV], v[MAXV], tau[MAXV], worst = 0.0, worst_below = 0.0;
  for (int f = 0; f < 2; f++) {
    int *d = dep + f * s->nc;
    assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, s->lm.q0, f, NULL, d), MB_OK);
    check_selection(s, d, rel);
  }
  /* from the end the greedy order is the pivots' order: every ratio ≥ MB_RCR_SWITCH */
  assert_true(min_ratio(s, s->lm.q0, dep) >= MB_RCR_SWITCH);
  assert_true(min_ratio(s, s->lm.q0, dep + s->nc) > MB_PIVOT_EPS);
  rng g = {seed};
  for (int n = 0; n < NSTATES; n++) {
    assembled_state(s, &g, q, v, tau);
    for (int f = 0; f < 2; f++) {
      double e = rcr_vs_fd(s, 1, dep + f * s->nc, q, v, tau, NULL), r = min_ratio(s, q, dep + f * s->nc);
      if (r >= MB_RCR_SWITCH)
        worst = fmax(worst, e);
      else
        below++, worst_below = fmax(worst_below, e * r);
    }
    worst = fmax(worst, rcr_vs_fd(s, 2, dep, q, v, tau, &used));
    if (min_ratio(s, q, dep) >= MB_RCR_SWITCH) assert_int_equal(used, 0);
  }
  if (!(worst <= 1e-10)) fail_msg("%s: mb_rcr vs mb_fd_loops: relative %.3e", rel, worst);
  if (!(worst_below <= 1e-12))
    fail_msg("%s: below the switch, error x ratio %.3e", rel, worst_below);
  printf("%-32s nv %2d nc %2d: worst |qdd_rcr - qdd_fd| / max|qdd_fd| = %.1e (below the switch: "
         "%d, error x ratio %.1e)\n",
         rel, s->nv, s->nc, worst, below, worst_below);
  sys_close(s);
}

/* Reference: mb_fd_loops (the same equations with multipliers). Bound 1e-10 relative. */
static void test_agreement(void **state) {
  (void)state;
  for (int k = 0; k < NMODELS; k++) agreement(models[k], 20270101u + (uint64_t)k);
}

/* Rotor inertias: random armature (0 on every third dof) on every model, mb_rcr against
 * mb_fd_loops with the same armature, 1e-10 relative as without; and the five-bar of
 * tests/jprops/ with its own armature, as test_agreement. Reference: mb_fd_loops. */
static void test_armature(void **state) {
  (void)state;
  for (int k = 0; k < NMODELS; k++) {
    sys *s = sys_open(models[k]);
    mb_model *m = (mb_model *)(uintptr_t)s->m; /* the model both workspaces are laid out for */
    double arm[MAXV], q[MAXV], v[MAXV], tau[MAXV], worst = 0.0;
    int dep[2 * MAXV];
    rng g = {777u + (uint64_t)k};
    for (int j = 0; j < s->nv; j++) arm[j] = j % 3 == 2 ? 0.0 : mbt_uni(&g, 0.01, 0.5);
    m->armature = arm;
    assert_int_equal(mb_has_armature(m), 1);
    for (int f = 0; f < 2; f++)
      assert_int_equal(mb_rcr_select(m, s->L, &s->ws, &s->lw, s->lm.q0, f, NULL, dep + f * s->nc),
                       MB_OK);
    for (int n = 0; n < NSTATES / 4; n++) {
      assembled_state(s, &g, q, v, tau);
      worst = fmax(worst, rcr_vs_fd(s, 2, dep, q, v, tau, NULL));
    }
    if (!(worst <= 1e-10)) fail_msg("%s with armature: relative %.3e", models[k], worst);
    m->armature = NULL;
    sys_close(s);
  }
  agreement("tests/jprops/five_bar_jp.mbd", 20270201u);
}

/* ------------------------------------------------------------------ the five-bar through its
 * singular instants */

#define DT 1e-3
#define NSTEPS 5000
/* Critchley & Anderson's dependents q2, q3 (columns 1, 2), then the alternative q1, q2. */
static const int five_sel[4] = {1, 2, 0, 1};

/* The paper's initial configuration (the model's `initial` statements): q1 = π/4, q2 = π/2,
 * q3 = −π/2, q4 = 0, where the loop closes exactly (examples/five_bar.mbd). lm.q0 is another
 * assembled configuration: mbt_loopmodel assembles from the neutral one, not from `initial`. */
static void five_paper(sys *s, double *q) {
  const double paper[4] = {PI / 4, PI / 2, -PI / 2, 0};
  double phi[MAXV];
  memcpy(q, paper, sizeof paper);
  assert_int_equal(mb_loop_residual(s->m, s->L, &s->ws, &s->lw, q, phi), MB_OK);
  MBT_ASSERT_NEAR(phi, (double[MAXV]){0}, s->nc, 1e-15);
}

/* q̈ at τ = 0 by mb_fd_loops (rcr = 0) or by mb_rcr with five_sel (used: its selection). */
static int five_accel(sys *s, int rcr, const double *q, const double *v, double *qdd, int *used) {
  double tau[MAXV] = {0};
  if (!rcr) return mb_fd_loops(s->m, s->L, &s->ws, &s->lw, q, v, tau, qdd, NULL);
  return mb_rcr(s->m, s->L, &s->ws, &s->lw, 2, five_sel, q, v, tau, qdd, used);
}

/* One RK4 step of length h (stages on the joint manifolds as in test_fd_loops.c), then mb_project_q
 * and mb_project_v (docs/loops.md, "Generated functions"). *used: the selection of the first
 * stage (at the step's start). */
static void rk4_step(sys *s, int rcr, double *q, double *v, double h, int *used) {
  static const double c[4] = {0, 0.5, 0.5, 1}, b[4] = {1. / 6, 2. / 6, 2. / 6, 1. / 6};
  int nv = s->nv, u = -1;
  double Kq[4 * MAXV], Kv[4 * MAXV], dq[MAXV], vs[MAXV], qs[MAXV];
  for (int st = 0; st < 4; st++) {
    for (int j = 0; j < nv; j++) {
      dq[j] = st ? c[st] * h * Kq[(st - 1) * nv + j] : 0.0;
      vs[j] = v[j] + (st ? c[st] * h * Kv[(st - 1) * nv + j] : 0.0);
    }
    assert_int_equal(mb_integrate(s->m, q, dq, 1.0, qs), MB_OK);
    int rc = five_accel(s, rcr, qs, vs, Kv + st * nv, st ? NULL : &u);
    if (rc) fail_msg("%s in RK4: %d", rcr ? "mb_rcr" : "mb_fd_loops", rc);
    memcpy(Kq + st * nv, vs, sizeof *vs * (size_t)nv);
  }
  for (int j = 0; j < nv; j++) {
    dq[j] = 0.0;
    for (int st = 0; st < 4; st++)
      dq[j] += h * b[st] * Kq[st * nv + j], v[j] += h * b[st] * Kv[st * nv + j];
  }
  assert_int_equal(mb_integrate(s->m, q, dq, 1.0, q), MB_OK);
  assert_int_equal(mb_project_q(s->m, s->L, &s->ws, &s->lw, q), MB_OK);
  assert_int_equal(mb_project_v(s->m, s->L, &s->ws, &s->lw, q, v), MB_OK);
  if (used) *used = u;
}

/* 5 s from the paper's state at rest: q, v at every step (NSTEPS + 1 rows of 4), used (mb_rcr
 * only). */
static void five_run(sys *s, int rcr, double *q, double *v, int *used) {
  five_paper(s, q);
  memset(v, 0, 4 * sizeof *v);
  for (int k = 0; k < NSTEPS; k++) {
    memcpy(q + 4 * (k + 1), q + 4 * k, 4 * sizeof *q);
    memcpy(v + 4 * (k + 1), v + 4 * k, 4 * sizeof *v);
    rk4_step(s, rcr, q + 4 * (k + 1), v + 4 * (k + 1), DT, rcr ? used + k : NULL);
  }
  double qdd[MAXV];
  if (rcr)
    assert_int_equal(five_accel(s, 1, q + 4 * NSTEPS, v + 4 * NSTEPS, qdd, used + NSTEPS), 0);
}

/* Bar 2's axis: vertical where cos(q1 + q2) = 0. */
static double bar2_cos(const double *q) { return cos(q[0] + q[1]); }

/* The state where bar 2 is vertical between step k and k + 1 of the mb_fd_loops trajectory: a
 * partial RK4 step h from step k, projected, bisected on h to the last bit. */
static void five_vertical(sys *s, const double *qk, const double *vk, double *q, double *v) {
  double lo = 0.0, hi = DT, c0 = bar2_cos(qk);
  for (int it = 0; it < 80 && lo < hi; it++) {
    double h = 0.5 * (lo + hi);
    if (h == lo || h == hi) break;
    memcpy(q, qk, 4 * sizeof *q), memcpy(v, vk, 4 * sizeof *v);
    rk4_step(s, 0, q, v, h, NULL);
    if ((bar2_cos(q) > 0) == (c0 > 0))
      lo = h;
    else
      hi = h;
  }
  memcpy(q, qk, 4 * sizeof *q), memcpy(v, vk, 4 * sizeof *v);
  rk4_step(s, 0, q, v, lo, NULL);
}

/* At the bisected vertical state: the paper's selection alone is singular (MB_ENUMERIC, the pivot
 * ratio below MB_PIVOT_EPS), mb_fd_loops is not, and both selections together switch to q1, q2. */
static void five_at_vertical(sys *s, const double *q, const double *v) {
  double tau[MAXV] = {0}, qdd[MAXV], r = min_ratio(s, q, five_sel);
  int used = -2;
  printf("five_bar: bar 2 vertical (cos(q1 + q2) = %.1e): q2, q3 pivot ratio %.1e\n", bar2_cos(q),
         r);
  if (!(r < MB_PIVOT_EPS)) fail_msg("pivot ratio at the vertical state %.3e", r);
  s->lw.singular = 0;
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, five_sel, q, v, tau, qdd, &used),
                   MB_ENUMERIC);
  assert_int_equal(s->lw.singular, 1 + s->L->row[0]);
  double e = rcr_vs_fd(s, 2, five_sel, q, v, tau, &used);
  assert_int_equal(used, 1);
  if (!(e <= 1e-10)) fail_msg("vertical state: mb_rcr vs mb_fd_loops %.3e", e);
}

/* Step k of both trajectories: mb_rcr's selection follows the rule of mb.h (q2, q3 while their
 * ratios are all ≥ MB_RCR_SWITCH, else q1, q2 if theirs are, else the larger), and where bar 2
 * turns vertical between steps k and k + 1 (interpolated: *t) the alternative is in use. Returns 1
 * at a vertical instant. */
static int five_step_check(sys *s, const double *qf, const double *qr, const int *used, int k,
                           double *t) {
  double r0 = min_ratio(s, qr + 4 * k, five_sel), r1 = min_ratio(s, qr + 4 * k, five_sel + 2);
  int rule = r0 >= MB_RCR_SWITCH ? 0 : r1 >= MB_RCR_SWITCH ? 1 : r1 > r0;
  if (used[k] != rule) fail_msg("step %d: selection %d, ratios %.3e %.3e", k, used[k], r0, r1);
  if (k > 0 && used[k] != used[k - 1])
    printf("five_bar: t = %.3f s: selection %d -> %d\n", k * DT, used[k - 1], used[k]);
  if (k == NSTEPS) return 0;
  double c0 = bar2_cos(qf + 4 * k), c1 = bar2_cos(qf + 4 * k + 4);
  if ((c0 > 0) == (c1 > 0)) return 0;
  *t = (k + c0 / (c0 - c1)) * DT;
  printf("five_bar: bar 2 vertical at t = %.4f s\n", *t);
  /* within a step of the instant the paper's ratio is ≪ MB_RCR_SWITCH: the alternative */
  if (used[k] != 1 || used[k + 1] != 1) fail_msg("t = %.4f s: selection %d", *t, used[k]);
  return 1;
}

/* Reference: the trajectory of mb_fd_loops, and bar 2's vertical instants on it (first at
 * t = 0.8103 s, docs/loops.md). mb_rcr with the paper's selection and q1, q2 as the alternative
 * must give the same trajectory to 1e-9, using the alternative through every vertical instant. */
static void test_five_bar(void **state) {
  (void)state;
  sys *s = sys_open("examples/five_bar.mbd");
  assert_int_equal(s->nq, 4), assert_int_equal(s->nv, 4), assert_int_equal(s->nc, 2);
  size_t n = (size_t)(NSTEPS + 1), w;
  double *qf = malloc(4 * n * sizeof *qf), *vf = malloc(4 * n * sizeof *vf);
  double *qr = malloc(4 * n * sizeof *qr), *vr = malloc(4 * n * sizeof *vr);
  int *used = malloc(n * sizeof *used);
  assert_true(qf && vf && qr && vr && used);
  five_run(s, 0, qf, vf, NULL);
  five_run(s, 1, qr, vr, used);
  double dq = 0.0, rmin = INFINITY, t, t1 = -1;
  int first = -1, ncross = 0;
  for (int k = 0; k <= NSTEPS; k++) {
    dq = fmax(dq, mbt_max_diff(qr + 4 * k, qf + 4 * k, 4, &w));
    rmin = fmin(rmin, min_ratio(s, qf + 4 * k, five_sel));
    if (five_step_check(s, qf, qr, used, k, &t) && ncross++ == 0) first = k, t1 = t;
  }
  printf("five_bar: 5 s, RK4 dt 1 ms: max |q_rcr - q_fd| = %.1e, %d vertical instants, smallest "
         "q2, q3 pivot ratio on the trajectory %.1e\n",
         dq, ncross, rmin);
  if (!(dq <= 1e-9)) fail_msg("trajectories differ by %.3e", dq);
  /* docs/loops.md: first vertical at 0.8103 s (to its four digits) */
  if (!(fabs(t1 - 0.8103) <= 5e-5)) fail_msg("bar 2 first vertical at %.5f s", t1);
  int on = 0, off;
  while (on <= NSTEPS && used[on] != 1) on++;
  for (off = on; off <= NSTEPS && used[off] == 1;) off++;
  printf("five_bar: q1, q2 first used from t = %.3f to %.3f s\n", on * DT, off * DT);
  assert_true(used[0] == 0 && on <= first && first + 1 < off); /* it brackets the first instant */
  double near =
      fmin(min_ratio(s, qf + 4 * first, five_sel), min_ratio(s, qf + 4 * first + 4, five_sel));
  printf("five_bar: q2, q3 pivot ratio at the steps around it %.1e\n", near);
  assert_true(near < 1e-6);
  double q[4], v[4];
  five_vertical(s, qf + 4 * first, vf + 4 * first, q, v);
  five_at_vertical(s, q, v);
  free(qf), free(vf), free(qr), free(vr), free(used);
  sys_close(s);
}

/* ------------------------------------------------------------------------- the selection API */

/* mb_rcr's MB_EINVAL for the selection dep (nsel 1) at (q, v = τ = 0). */
static void expect_einval(sys *s, const double *q, const int *dep, const char *what) {
  double z[MAXV] = {0}, qdd[MAXV];
  int rc = mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, dep, q, z, z, qdd, NULL);
  if (rc != MB_EINVAL) fail_msg("%s: mb_rcr returned %d, not MB_EINVAL", what, rc);
}

/* Reference: the contract of mb.h. At the paper's five-bar state (five_paper) A = (0, 0), C = (0,
 * √2 L) and bar 4's frame P = C on one vertical line, so the columns of q1 and q3 are equal (rows:
 * rotation, P's height) and q4's is zero (the slide is along the loop's own axis): with q2 kept, no
 * selection from either end exists (MB_ENUMERIC); at generic states the only one is q1, q3. */
static void test_select_keep(void **state) {
  (void)state;
  sys *s = sys_open("examples/five_bar.mbd");
  int keep[MAXV] = {0}, dep[MAXV];
  double q[MAXV], v[MAXV], tau[MAXV];
  keep[1] = 1;
  five_paper(s, q);
  for (int f = 0; f < 2; f++) {
    s->lw.singular = 0;
    assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, q, f, keep, dep), MB_ENUMERIC);
    assert_int_equal(s->lw.singular, 1 + s->L->row[0]);
  }
  rng g = {77};
  for (int n = 0; n < 10; n++) {
    assembled_state(s, &g, q, v, tau);
    for (int f = 0; f < 2; f++) {
      assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, q, f, keep, dep), MB_OK);
      assert_true((dep[0] == 0 && dep[1] == 2) || (dep[0] == 2 && dep[1] == 0));
      assert_true(rcr_vs_fd(s, 1, dep, q, v, tau, NULL) <= 1e-10);
    }
  }
  sys_close(s);
  /* every model: the columns of the first selection kept, none of them is taken again */
  for (int k = 0; k < NMODELS; k++) {
    s = sys_open(models[k]);
    int dep0[MAXV];
    memset(keep, 0, sizeof keep);
    assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, s->lm.q0, 0, NULL, dep0), MB_OK);
    keep[dep0[0]] = 1;
    for (int f = 0; f < 2; f++) {
      int rc = mb_rcr_select(s->m, s->L, &s->ws, &s->lw, s->lm.q0, f, keep, dep);
      assert_true(rc == MB_OK || rc == MB_ENUMERIC);
      if (rc) continue;
      check_selection(s, dep, models[k]);
      for (int j = 0; j < s->nc; j++) assert_true(dep[j] != dep0[0]);
    }
    sys_close(s);
  }
}

/* Reference: the contract of mb.h, MB_EINVAL for an invalid selection or argument. */
static void test_select_invalid(void **state) {
  (void)state;
  sys *s = sys_open("examples/five_bar.mbd");
  const double *q0 = s->lm.q0;
  double z[MAXV] = {0}, qdd[MAXV], ratio[MAXV], lo;
  int dep[MAXV];
  expect_einval(s, q0, (int[]){1, 4}, "column nv");
  expect_einval(s, q0, (int[]){-1, 1}, "column -1");
  expect_einval(s, q0, (int[]){1, 1}, "a column twice");
  /* an invalid second selection, though the first is regular and would be used */
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 2, (int[]){1, 2, 1, 4}, q0, z, z, qdd, NULL),
                   MB_EINVAL);
  for (int nsel = -1; nsel <= 0; nsel++)
    assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, nsel, five_sel, q0, z, z, qdd, NULL),
                     MB_EINVAL);
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, NULL, q0, z, z, qdd, NULL), MB_EINVAL);
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, five_sel, NULL, z, z, qdd, NULL),
                   MB_EINVAL);
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, five_sel, q0, NULL, z, qdd, NULL),
                   MB_EINVAL);
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, five_sel, q0, z, NULL, qdd, NULL),
                   MB_EINVAL);
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, five_sel, q0, z, z, NULL, NULL),
                   MB_EINVAL);
  assert_int_equal(mb_rcr(s->m, NULL, &s->ws, &s->lw, 1, five_sel, q0, z, z, qdd, NULL), MB_EINVAL);
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, NULL, 1, five_sel, q0, z, z, qdd, NULL), MB_EINVAL);
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, five_sel, q0, z, z, qdd, NULL), MB_OK);
  assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, q0, 0, NULL, NULL), MB_EINVAL);
  assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, NULL, 0, NULL, dep), MB_EINVAL);
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q0, five_sel, NULL, &lo), MB_EINVAL);
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q0, NULL, ratio, &lo), MB_EINVAL);
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q0, (int[]){1, 1}, ratio, &lo),
                   MB_EINVAL);
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q0, five_sel, ratio, NULL), MB_OK);
  assert_true(ratio[0] > 0 && ratio[0] <= 1 && ratio[1] > 0 && ratio[1] <= 1);
  sys_close(s);
  /* a group given too few or too many: a column on no loop's path (the quarter car's wheel spin)
   * or of another group (loop_types: seven separate mechanisms) instead of one of its own */
  for (int k = 0; k < NMODELS; k++) {
    s = sys_open(models[k]);
    int gcol[MAXV], grows[MAXV], tried = 0;
    col_groups(s, gcol, grows);
    assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, s->lm.q0, 0, NULL, dep), MB_OK);
    for (int x = 0; x < s->nv; x++) {
      int in = 0;
      for (int j = 0; j < s->nc; j++) in |= dep[j] == x;
      for (int j = 0; j < s->nc && !in; j++) {
        if (gcol[x] == gcol[dep[j]]) continue;
        int d2[MAXV];
        memcpy(d2, dep, sizeof *d2 * (size_t)s->nc), d2[j] = x, tried++;
        expect_einval(s, s->lm.q0, d2, models[k]);
        assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, s->lm.q0, d2, ratio, &lo),
                         MB_EINVAL);
      }
    }
    if (strstr(models[k], "quarter_car") || strstr(models[k], "loop_types")) assert_true(tried);
    sys_close(s);
  }
}

/* Reference: the rule of mb.h, the first selection whose ratios are all ≥ MB_RCR_SWITCH is used;
 * one below MB_PIVOT_EPS is never used. At the paper's five-bar state the rows are tilt1 (the
 * rotation) and slide1 (P's height): the columns of q1, q2, q3 are (1, 0), (1, L/√2), (1, 0) up to
 * sign. Eliminated from the chain's end, q2, q3 has ratios 1/3 (q2: 1 − (c2·c3)² / |c2|²|c3|²) and
 * 1 (q3); q1, q2 has 1/3 (q1) and 1 (q2); q1, q3 is singular (equal columns). The denominators
 * carry MB_RCR_ZERO (|c2|² + |c3|²) = 2.5 MB_RCR_ZERO besides |c|² (mb.h). */
static void test_preference(void **state) {
  (void)state;
  sys *s = sys_open("examples/five_bar.mbd");
  double q[MAXV], v[MAXV], tau[MAXV], z[MAXV] = {0}, qdd[MAXV], ratio[MAXV], lo;
  const int swapped[4] = {0, 1, 1, 2}, singular_first[4] = {0, 2, 1, 2}, reversed[2] = {2, 1};
  const double z25 = 2.5 * MB_RCR_ZERO;
  const double third_one[2] = {0.5 / (1.5 + z25), 1.0 / (1.0 + z25)};
  const double one_third[2] = {1.0 / (1.0 + z25), 0.5 / (1.5 + z25)};
  const double q1q2[2] = {(1.0 / 3) / (1.0 + z25), 1.5 / (1.5 + z25)}; /* q1 against c2 */
  int used = -2;
  rng g = {5};
  assembled_state(s, &g, q, v, tau);
  five_paper(s, q); /* with a velocity of the manifold there */
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q, five_sel, ratio, &lo), MB_OK);
  MBT_ASSERT_NEAR(ratio, third_one, 2, 1e-14);
  MBT_ASSERT_NEAR1(lo, third_one[0], 1e-14);
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q, reversed, ratio, &lo), MB_OK);
  MBT_ASSERT_NEAR(ratio, one_third, 2, 1e-14); /* in dep's order */
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q, five_sel + 2, ratio, &lo), MB_OK);
  MBT_ASSERT_NEAR(ratio, q1q2, 2, 1e-14);
  assert_true(min_ratio(s, q, singular_first) < MB_PIVOT_EPS);
  assert_int_equal(mb_project_v(s->m, s->L, &s->ws, &s->lw, q, v), MB_OK);
  assert_true(rcr_vs_fd(s, 2, five_sel, q, v, tau, &used) <= 1e-10);
  assert_int_equal(used, 0);
  used = -2;
  assert_true(rcr_vs_fd(s, 2, swapped, q, v, tau, &used) <= 1e-10);
  assert_int_equal(used, 0);
  used = -2;
  assert_true(rcr_vs_fd(s, 2, singular_first, q, v, tau, &used) <= 1e-10);
  assert_int_equal(used, 1);
  assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, singular_first, q, z, z, qdd, NULL),
                   MB_ENUMERIC);
  sys_close(s);
}

/* The plan of coupled loops (rcr_internal.h), checked against the models' topology; their q̈ is
 * checked against mb_fd_loops by test_agreement. nested_loops: bodies L1 L2 L3 A1 A2 B1 B2 are
 * 1..7; the outer loop (group 0, base the world) and the inner one (group 1, base L1) share the
 * joints of L2 and L3, independent in both: two groups, L1 in the outer head only, L2 and L3 in
 * both, p = L3 for both. nested_fan: six loops whose heads all hold S6 (6 > MB_RCR_MAX_OPEN): one
 * group. */
static void test_nested_plan(void **state) {
  (void)state;
  sys *s = sys_open("tests/models/nested_loops.mbd");
  int dep[MAXV];
  rcr_plan P;
  assert_int_equal(s->m->nb, 7);
  assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, s->lm.q0, 0, NULL, dep), MB_OK);
  assert_int_equal(mb_rcr_plan_(s->m, s->L, &s->lw, &P, dep), MB_OK);
  assert_int_equal(P.ng, 2);
  assert_int_equal(P.base[0], 0);
  assert_int_equal(P.base[1], 1);
  assert_int_equal(P.p[0], 3);
  assert_int_equal(P.p[1], 3);
  const int nopen[8] = {0, 1, 2, 2, 0, 0, 0, 0}, role[8] = {0, 1, 1, 1, 2, 2, 2, 2};
  for (int i = 0; i <= 7; i++) {
    assert_int_equal(P.nopen[i], nopen[i]);
    assert_int_equal(P.role[i], role[i]);
  }
  assert_int_equal(P.nI[0] + P.nI[1], 0);
  /* with q2 dependent the shared joint is no head: one group, its tail holding q2 and q3 */
  const int merged[4] = {1, 3, 5, 6};
  assert_int_equal(mb_rcr_plan_(s->m, s->L, &s->lw, &P, merged), MB_OK);
  assert_int_equal(P.ng, 1);
  sys_close(s);
  s = sys_open("tests/models/nested_fan.mbd");
  assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, s->lm.q0, 0, NULL, dep), MB_OK);
  assert_int_equal(mb_rcr_plan_(s->m, s->L, &s->lw, &P, dep), MB_OK);
  assert_int_equal(P.ng, 1);
  for (int i = 0; i <= s->m->nb; i++) assert_true(P.nopen[i] <= MB_RCR_MAX_OPEN);
  sys_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_agreement),   cmocka_unit_test(test_armature),
      cmocka_unit_test(test_five_bar),
      cmocka_unit_test(test_select_keep), cmocka_unit_test(test_select_invalid),
      cmocka_unit_test(test_preference),  cmocka_unit_test(test_nested_plan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
