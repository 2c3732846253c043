/* test_loop_derivatives.c — the derivatives of the closed-loop forward dynamics
 * (runtime/loop_derivatives.c, mb_fd_loops_derivatives): one loop of every type on random
 * floating-base trees (to the world and between moving bodies), spatial chains with two loops of
 * random types, and the planar six-bar with two coupled loops.
 *
 * References:
 *   - central differences of mb_fd_loops (q̈ and λ) along the tangent space (q ⊕ ε e_k by
 *     mb_integrate) and along v and τ; step h = 1e-5, agreement to 1e-6 relative to the largest
 *     entry of each matrix (truncation h² ≈ 1e-10, rounding ≈ 1e-16 / h = 1e-11, times the
 *     conditioning of the loop system);
 *   - q̈ and λ equal to mb_fd_loops' (exactly: the same call);
 *   - ∂q̈/∂τ and ∂λ/∂τ in closed form: with Y = M⁻¹ Kᵀ and Φ = K Y, ∂λ/∂τ = −Φ⁻¹ K M⁻¹ and
 *     ∂q̈/∂τ = M⁻¹ + Y ∂λ/∂τ, so K ∂q̈/∂τ = 0 (the constraint holds for every τ) and
 *     M ∂q̈/∂τ − Kᵀ ∂λ/∂τ = 1, checked with mb_crba and mb_loop_jacobian (to 1e-9 relative to
 *     the largest product in each entry, and to the largest |K_r| · |∂q̈/∂τ| for a row of K). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_loopmech.h"
#include "mb_randtree.h"
#include "mb_testutil.h"

static double worst_q, worst_v, worst_tau, worst_id;
static int checked;

typedef struct dres {
  double *qdd, *lam, *D[3], *DL[3];
} dres;

static void dres_alloc(dres *r, int nv, int nc) {
  size_t n2 = (size_t)nv * (size_t)nv, nl = (size_t)nc * (size_t)nv;
  r->qdd = calloc((size_t)nv, sizeof(double)), r->lam = calloc((size_t)nc + 1, sizeof(double));
  for (int k = 0; k < 3; k++)
    r->D[k] = calloc(n2, sizeof(double)), r->DL[k] = calloc(nl + 1, sizeof(double));
}

static void dres_free(dres *r) {
  free(r->qdd), free(r->lam);
  for (int k = 0; k < 3; k++) free(r->D[k]), free(r->DL[k]);
}

/* q̈ and λ at (q, v, τ); asserts success. */
static void fd(lsys *s, const double *q, const double *v, const double *tau, double *qdd,
               double *lam) {
  int rc = mb_fd_loops(s->m, &s->L, &s->ws, &s->lw, q, v, tau, qdd, lam);
  if (rc) fail_msg("%s: mb_fd_loops %d", ctx, rc);
}

/* Column k of the differences of (q̈, λ) into (Dq, DL) (nv × nv, nc × nv), against the analytic
 * ones; returns the columns' worst errors relative to the matrices' largest entries. */
static double diff_input(lsys *s, int which, const double *q, const double *v, const double *tau,
                         const double *D, const double *DL, double h) {
  const mb_model *m = s->m;
  int nv = m->nv, nc = s->L.nc;
  double qp[MAXQ], qm[MAXQ], vp[MAXV], vm[MAXV], tp[MAXV], tm[MAXV], e[MAXV];
  double ap[MAXV], am[MAXV], lp[MAXC], lm[MAXC], worst = 0.0;
  double dmax = fmax(maxabs(D, nv * nv), 1e-300), lmax = fmax(maxabs(DL, nc * nv), 1e-300);
  for (int k = 0; k < nv; k++) {
    memcpy(qp, q, sizeof(double) * (size_t)m->nq), memcpy(qm, q, sizeof(double) * (size_t)m->nq);
    memcpy(vp, v, sizeof(double) * (size_t)nv), memcpy(vm, v, sizeof(double) * (size_t)nv);
    memcpy(tp, tau, sizeof(double) * (size_t)nv), memcpy(tm, tau, sizeof(double) * (size_t)nv);
    memset(e, 0, sizeof e), e[k] = 1.0;
    if (which == 0) {
      assert_int_equal(mb_integrate(m, q, e, h, qp), MB_OK);
      assert_int_equal(mb_integrate(m, q, e, -h, qm), MB_OK);
    } else if (which == 1) {
      vp[k] += h, vm[k] -= h;
    } else {
      tp[k] += h, tm[k] -= h;
    }
    fd(s, qp, vp, tp, ap, lp), fd(s, qm, vm, tm, am, lm);
    for (int r = 0; r < nv; r++) {
      double d = (ap[r] - am[r]) / (2.0 * h) - D[nv * r + k];
      worst = fmax(worst, fabs(d) / dmax);
    }
    for (int r = 0; r < nc; r++) {
      double d = (lp[r] - lm[r]) / (2.0 * h) - DL[nv * r + k];
      worst = fmax(worst, fabs(d) / lmax);
    }
  }
  return worst;
}

/* K ∂q̈/∂τ = 0 and M ∂q̈/∂τ − Kᵀ ∂λ/∂τ = 1 (relative to the largest entry of M ∂q̈/∂τ). */
static double tau_identities(lsys *s, const double *q, const dres *r) {
  const mb_model *m = s->m;
  int nv = m->nv, nc = s->L.nc;
  double *M = calloc((size_t)nv * (size_t)nv, sizeof(double));
  double *K = calloc((size_t)nc * (size_t)nv + 1, sizeof(double)), worst = 0.0;
  assert_int_equal(mb_crba(m, &s->ws, q, M), MB_OK);
  jac(s, q, K);
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < nv; j++) {
      double x = -(i == j), scale = 1.0;
      for (int k = 0; k < nv; k++) {
        x += M[nv * i + k] * r->D[2][nv * k + j];
        scale = fmax(scale, fabs(M[nv * i + k] * r->D[2][nv * k + j]));
      }
      for (int c = 0; c < nc; c++) x -= K[nv * c + i] * r->DL[2][nv * c + j];
      worst = fmax(worst, fabs(x) / scale);
    }
  double dmax = maxabs(r->D[2], nv * nv); /* K's rows against the whole of ∂q̈/∂τ */
  for (int c = 0; c < nc; c++)
    for (int j = 0; j < nv; j++) {
      double x = 0.0, scale = fmax(maxabs(K + nv * c, nv) * dmax, 1e-300);
      for (int k = 0; k < nv; k++) x += K[nv * c + k] * r->D[2][nv * k + j];
      worst = fmax(worst, fabs(x) / scale);
    }
  free(M), free(K);
  return worst;
}

/* Every check at one state: returns 0, or -1 if Φ is singular there (skipped). */
static int check_state(lsys *s, const double *q, const double *v, const double *tau) {
  const mb_model *m = s->m;
  int nv = m->nv, nc = s->L.nc;
  size_t size = mb_fd_loops_derivatives_scratch_size(m, &s->L);
  assert_true(size > 0 && size < SIZE_MAX);
  double *scr = malloc(size), a0[MAXV], l0[MAXC];
  dres r;
  dres_alloc(&r, nv, nc);
  int rc = mb_fd_loops_derivatives(m, &s->L, &s->ws, &s->lw, scr, q, v, tau, r.qdd, r.lam,
                                   r.D[0], r.D[1], r.D[2], r.DL[0], r.DL[1], r.DL[2]);
  if (rc == MB_ENUMERIC) {
    dres_free(&r), free(scr);
    return -1;
  }
  if (rc) fail_msg("%s: mb_fd_loops_derivatives %d", ctx, rc);
  fd(s, q, v, tau, a0, l0);
  assert_memory_equal(a0, r.qdd, sizeof(double) * (size_t)nv);
  if (nc) assert_memory_equal(l0, r.lam, sizeof(double) * (size_t)nc);
  double e[3], tol = 1e-6;
  for (int k = 0; k < 3; k++) e[k] = diff_input(s, k, q, v, tau, r.D[k], r.DL[k], 1e-5);
  double id = tau_identities(s, q, &r);
  worst_q = fmax(worst_q, e[0]), worst_v = fmax(worst_v, e[1]), worst_tau = fmax(worst_tau, e[2]);
  worst_id = fmax(worst_id, id);
  if (e[0] > tol || e[1] > tol || e[2] > tol || id > 1e-9)
    fail_msg("%s: q %.3g v %.3g tau %.3g identities %.3g", ctx, e[0], e[1], e[2], id);
  checked++;
  dres_free(&r), free(scr);
  return 0;
}

/* A random state near the assembled q0: q = q0 ⊕ small, v and τ uniform. */
static void rand_state(mbt_rng *g, const mb_model *m, const double *q0, double *q, double *v,
                       double *tau) {
  double dv[MAXV];
  mbt_rand_vec(g, m->nv, -0.02, 0.02, dv);
  assert_int_equal(mb_integrate(m, q0, dv, 1.0, q), MB_OK);
  mbt_rand_vec(g, m->nv, -1.0, 1.0, v);
  mbt_rand_vec(g, m->nv, -2.0, 2.0, tau);
}

/* One loop of every type on random floating-base trees: to the world, from the world, and
 * between two moving bodies. */
static void test_every_type(void **state) {
  (void)state;
  int skipped = 0, n = 0;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 7000 * (uint64_t)t + seed);
      mbt_tree *tr;
      double q0[MAXQ], q[MAXQ], v[MAXV], tau[MAXV];
      int a, b;
      lsys *s = tree_with_loop(&g, 500 * (uint64_t)t + seed, 5, (mb_loop_type)t, (int)seed - 1,
                               &tr, q0, &a, &b);
      snprintf(ctx, sizeof ctx, "type %d seed %d a %d b %d", t, (int)seed, a, b);
      rand_state(&g, s->m, q0, q, v, tau);
      skipped += check_state(s, q, v, tau) != 0, n++;
      lsys_free(s);
      mbt_tree_free(tr);
    }
  assert_true(skipped * 4 <= n);
}

/* Spatial chains of 14 scalar joints with two loops of given types between moving bodies
 * (chain_two_loops). */
static void test_two_loops(void **state) {
  (void)state;
  static const mb_loop_type pair[][2] = {{MB_LOOP_REVOLUTE, MB_LOOP_SPHERICAL},
                                         {MB_LOOP_HELICAL, MB_LOOP_SS},
                                         {MB_LOOP_PRISMATIC, MB_LOOP_D1},
                                         {MB_LOOP_FIXED, MB_LOOP_D2},
                                         {MB_LOOP_UNIVERSAL, MB_LOOP_CYLINDRICAL}};
  for (size_t k = 0; k < sizeof pair / sizeof pair[0]; k++) {
    mbt_rng g;
    mbt_rng_seed(&g, 180 + k);
    mbt_tree *tc;
    double q0[14], q[14], v[14], tau[14];
    lsys *s = chain_two_loops(&g, pair[k][0], pair[k][1], &tc, q0);
    snprintf(ctx, sizeof ctx, "two loops %d, %d", (int)pair[k][0], (int)pair[k][1]);
    rand_state(&g, s->m, q0, q, v, tau);
    assert_int_equal(check_state(s, q, v, tau), 0);
    lsys_free(s);
    mbt_tree_free(tc);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_type),
      cmocka_unit_test(test_two_loops),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  printf("loop derivatives (%d states): worst relative error q %.2e, v %.2e, tau %.2e; "
         "identities %.2e\n",
         checked, worst_q, worst_v, worst_tau, worst_id);
  return rc;
}
