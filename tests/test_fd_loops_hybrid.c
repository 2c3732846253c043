/* test_fd_loops_hybrid.c — constrained forward dynamics with prescribed coordinates
 * (runtime/fd_loops_hybrid.c). Reference: the dense partitioned KKT system in the unknowns
 * [q̈_F; τ_P; λ] — M q̈ + h = τ + Kᵀλ (nv rows), K q̈ = −K̇v (nc rows), with q̈_P and τ_F given —
 * solved here by Gaussian elimination with partial pivoting from mb_crba, mb_nle, mb_loop_jacobian
 * and mb_loop_bias, on random floating-base trees closed by one loop of every type and on a
 * spatial chain with two loops, masks drawn dof by dof; every dof free gives mb_fd_loops; a loop
 * with every coordinate prescribed is singular (MB_ENUMERIC). */
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

static double worst;

/* One state: mb_fd_loops_hybrid against the dense system; returns 1 if compared, 0 if both found
 * the system singular. */
static int compare(lsys *s, const double *q, const double *v, const int *mask, const double *in) {
  const mb_model *m = s->m;
  int nv = m->nv, nc = s->L.nc, n = nv + nc;
  double M[MAXV * MAXV], h[MAXV], K[MAXC * MAXV], kb[MAXC], qdd[MAXV], tau[MAXV], lam[MAXC];
  static double A[(MAXV + MAXC) * (MAXV + MAXC)];
  double x[MAXV + MAXC];
  assert_int_equal(mb_crba(m, &s->ws, q, M), MB_OK);
  assert_int_equal(mb_nle(m, &s->ws, q, v, h), MB_OK);
  jac(s, q, K), bias(s, q, v, kb);
  memset(A, 0, sizeof(double) * (size_t)(n * n));
  for (int i = 0; i < nv; i++) { /* unknown j < nv: q̈_j (free) or τ_j (prescribed) */
    x[i] = (mask[i] ? 0.0 : in[i]) - h[i];
    for (int j = 0; j < nv; j++) {
      if (mask[j]) x[i] -= M[nv * i + j] * in[j];
      else A[n * i + j] = M[nv * i + j];
    }
    if (mask[i]) A[n * i + i] = -1.0;
    for (int r = 0; r < nc; r++) A[n * i + nv + r] = -K[nv * r + i];
  }
  for (int r = 0; r < nc; r++) {
    x[nv + r] = -kb[r];
    for (int j = 0; j < nv; j++) {
      if (mask[j]) x[nv + r] -= K[nv * r + j] * in[j];
      else A[n * (nv + r) + j] = K[nv * r + j];
    }
  }
  /* the smallest |pivot| of the dense solve over the largest |A| entry (0: singular) */
  double big = mbt_max_abs(A, (size_t)(n * n)), cond = mbt_gauss(n, A, x) / big;
  int rc = mb_fd_loops_hybrid(m, &s->L, &s->ws, &s->lw, q, v, mask, in, qdd, tau, lam);
  if (rc == MB_ENUMERIC) {
    assert_true(cond < 1e-9); /* singular for the reference too */
    return 0;
  }
  assert_int_equal(rc, MB_OK);
  assert_true(cond > 1e-13);
  double wq[MAXV], wt[MAXV];
  for (int j = 0; j < nv; j++) {
    wq[j] = mask[j] ? in[j] : x[j], wt[j] = mask[j] ? x[j] : in[j];
    if (mask[j]) assert_true(qdd[j] == in[j]);
    else assert_true(tau[j] == in[j]);
  }
  double sq = fmax(maxabs(wq, nv), 1.0), st = fmax(maxabs(wt, nv), 1.0);
  double sl = fmax(maxabs(x + nv, nc), 1.0);
  MBT_ASSERT_NEAR(qdd, wq, nv, 1e-8 * sq);
  MBT_ASSERT_NEAR(tau, wt, nv, 1e-8 * st);
  MBT_ASSERT_NEAR(lam, x + nv, nc, 1e-8 * sl);
  for (int j = 0; j < nv; j++)
    worst = fmax(worst, fmax(fabs(qdd[j] - wq[j]) / sq, fabs(tau[j] - wt[j]) / st));
  return 1;
}

/* Random floating-base trees with one loop of every type; masks: every dof free (then also
 * against mb_fd_loops), the floating base free and one joint prescribed, random. */
static void test_against_dense(void **state) {
  (void)state;
  int compared = 0, singular = 0;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 5100 * (uint64_t)t + seed);
      mbt_tree *tr;
      double q0[MAXQ], q[MAXQ], v[MAXV], qdd[MAXV], in[MAXV], want[MAXV];
      int a, b, mask[MAXV];
      lsys *s = tree_with_loop(&g, 300 * (uint64_t)t + seed, 6, (mb_loop_type)t, seed == 2, &tr,
                               q0, &a, &b);
      snprintf(ctx, sizeof ctx, "fd_loops_hybrid type %d seed %d", t, (int)seed);
      check_assembled(s, &g, q0, 0.02, q, v, qdd);
      int nv = s->m->nv;
      for (int trial = 0; trial < 6; trial++) {
        mbt_rand_vec(&g, nv, -2, 2, in);
        for (int k = 0; k < nv; k++)
          mask[k] = trial == 0 ? 0 : trial == 1 ? k == 6 + (int)(seed % 3) : mbt_randint(&g, 0, 1);
        int ok = compare(s, q, v, mask, in);
        compared += ok, singular += !ok;
        if (trial == 0) {
          double tau[MAXV], lam[MAXC];
          assert_int_equal(mb_fd_loops(s->m, &s->L, &s->ws, &s->lw, q, v, in, want, NULL), 0);
          assert_int_equal(mb_fd_loops_hybrid(s->m, &s->L, &s->ws, &s->lw, q, v, mask, in, qdd,
                                              tau, lam), MB_OK);
          MBT_ASSERT_REL(qdd, want, nv, 1e-12);
        }
      }
      lsys_free(s);
      mbt_tree_free(tr);
    }
  assert_true(compared > 3 * singular);
  print_message("fd_loops_hybrid vs dense KKT: %d states, %d singular for both; worst %.2e\n",
                compared, singular, worst);
}

/* A spatial chain of 14 joints closed by two loops: one and two joints on a loop prescribed (the
 * mechanism driven), then every coordinate prescribed: the rows are then unsolvable for λ alone
 * unless K_P's columns cover them — the status says singular when Φ = K_F M_FF⁻¹ K_Fᵀ is. */
static void test_two_loops_driven(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 77);
  mbt_tree *tc;
  double Q0[14], q[MAXQ], v[MAXV], qdd[MAXV], in[MAXV], tau[MAXV], lam[MAXC];
  lsys *s = chain_two_loops(&g, MB_LOOP_REVOLUTE, MB_LOOP_SPHERICAL, &tc, Q0);
  snprintf(ctx, sizeof ctx, "two loops driven");
  check_assembled(s, &g, Q0, 0.02, q, v, qdd);
  int nv = s->m->nv, mask[MAXV] = {0};
  mbt_rand_vec(&g, nv, -1, 1, in);
  mask[3] = 1;
  assert_int_equal(compare(s, q, v, mask, in), 1);
  mask[7] = 1;
  assert_int_equal(compare(s, q, v, mask, in), 1);
  for (int k = 0; k < nv; k++) mask[k] = 1; /* nothing free: Φ = 0 */
  assert_int_equal(mb_fd_loops_hybrid(s->m, &s->L, &s->ws, &s->lw, q, v, mask, in, qdd, tau,
                                      lam), MB_ENUMERIC);
  mask[0] = 2;
  assert_int_equal(mb_fd_loops_hybrid(s->m, &s->L, &s->ws, &s->lw, q, v, mask, in, qdd, tau,
                                      lam), MB_EINVAL);
  lsys_free(s);
  mbt_tree_free(tc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_dense),
      cmocka_unit_test(test_two_loops_driven),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
