/* test_aba.c — forward dynamics by the articulated-body algorithm (runtime/aba.c). References:
 * closed-form equations of motion of a single pendulum and a cart-pole (Lagrange, written out
 * below), and inverse dynamics: rnea(q, v, aba(q, v, τ)) = τ on seeded random trees with every
 * joint type, arbitrary axes, floating bases and branching, with and without external wrenches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

/* Single pendulum: revolute about y at the world origin, COM (L, 0, 0), COM inertia Ic, gravity
 * (0, 0, −g). Lagrange: (Iyy + m L²) θ̈ = τ + m g L cos θ, whatever θ̇. */
static void test_single_pendulum(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 31);
  for (int trial = 0; trial < 20; trial++) {
    double y[3] = {0, 1, 0}, m = mbt_uniform(&g, 0.5, 2), L = mbt_uniform(&g, 0.2, 1);
    double com[3] = {L, 0, 0}, Ic[6] = {0.02, 0.05, 0.04, 0.001, -0.002, 0.003};
    mbt_tree *t = mbt_tree_new(1);
    mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, y, NULL, NULL);
    mbt_tree_body(t, 1, m, com, Ic);
    mbt_tree_finish(t);
    mb_workspace ws;
    double *buf = mbt_workspace_new(&t->model, &ws), qdd;
    double th = mbt_uniform(&g, -3, 3), thd = mbt_uniform(&g, -2, 2), tau = mbt_uniform(&g, -2, 2);
    double want = (tau + m * 9.81 * L * cos(th)) / (Ic[1] + m * L * L);
    assert_int_equal(mb_aba(&t->model, &ws, &th, &thd, &tau, NULL, &qdd), 0);
    MBT_ASSERT_NEAR1(qdd, want, 1e-12 * fmax(1.0, fabs(want)));
    free(buf);
    mbt_tree_free(t);
  }
}

/* Cart-pole: a cart of mass mc sliding along x (force F), a pole hinged on it about y (torque τ),
 * COM at height l above the hinge at θ = 0, COM inertia J about y. The COM is at
 * (x + l sin θ, 0, l cos θ), so (Lagrange)
 *   (mc + mp) ẍ + mp l cos θ θ̈ − mp l sin θ θ̇² = F
 *   mp l cos θ ẍ + (J + mp l²) θ̈ − mp g l sin θ = τ,
 * solved here by Cramer's rule. The model: mbt_cart_pole. */
static void test_cart_pole(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 32);
  for (int trial = 0; trial < 20; trial++) {
    double mc = mbt_uniform(&g, 0.5, 3), mp = mbt_uniform(&g, 0.1, 1), l = mbt_uniform(&g, .2, 1);
    double J = mbt_uniform(&g, 0.001, 0.05);
    mbt_tree *t = mbt_cart_pole(mc, mp, l, J);
    mb_workspace ws;
    double *buf = mbt_workspace_new(&t->model, &ws), q[2], v[2], tau[2], qdd[2];
    mbt_rand_vec(&g, 2, -3, 3, q), mbt_rand_vec(&g, 2, -2, 2, v), mbt_rand_vec(&g, 2, -5, 5, tau);
    double c = cos(q[1]), s = sin(q[1]);
    double a11 = mc + mp, a12 = mp * l * c, a22 = J + mp * l * l;
    double b1 = tau[0] + mp * l * s * v[1] * v[1], b2 = tau[1] + mp * 9.81 * l * s;
    double det = a11 * a22 - a12 * a12;
    double want[2] = {(b1 * a22 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det};
    assert_int_equal(mb_aba(&t->model, &ws, q, v, tau, NULL, qdd), 0);
    MBT_ASSERT_NEAR(qdd, want, 2, 1e-12 * fmax(1.0, mbt_max_abs(want, 2)));
    free(buf);
    mbt_tree_free(t);
  }
}

/* rnea(q, v, aba(q, v, τ, fext), fext) = τ to 1e-10 relative, with fext NULL and random. */
static void check_inverse(int with_fext) {
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      mbt_tree *t = mbt_randtree(seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &t->model;
      size_t nv = (size_t)m->nv, nf = 6 * ((size_t)m->nb + 1);
      mb_workspace ws;
      double *buf = mbt_workspace_new(m, &ws), *q = malloc(sizeof(double) * ((size_t)m->nq + 4 * nv + nf));
      double *v = q + m->nq, *tau = v + nv, *qdd = tau + nv, *tau2 = qdd + nv, *fext = tau2 + nv;
      mbt_rng g;
      mbt_rng_seed(&g, seed * 13 + (uint64_t)s);
      mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v), mbt_rand_vec(&g, m->nv, -5, 5, tau);
      mbt_rand_vec(&g, (int)nf, -2, 2, fext);
      const double *fe = with_fext ? fext : NULL;
      assert_int_equal(mb_aba(m, &ws, q, v, tau, fe, qdd), 0);
      mb_rnea(m, &ws, q, v, qdd, fe, tau2);
      MBT_ASSERT_REL(tau2, tau, nv, 1e-10);
      free(q), free(buf);
      mbt_tree_free(t);
    }
}

static void test_inverse_of_rnea(void **state) {
  (void)state;
  check_inverse(0);
}

static void test_inverse_of_rnea_fext(void **state) {
  (void)state;
  check_inverse(1);
}

/* A massless body on a revolute joint at a leaf has D = 0: mb_aba reports it. */
static void test_singular(void **state) {
  (void)state;
  double y[3] = {0, 1, 0}, q = 0.3, v = 0, tau = 1, qdd;
  mbt_tree *t = mbt_tree_new(1);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, y, NULL, NULL);
  mbt_tree_finish(t);
  mb_workspace ws;
  double *buf = mbt_workspace_new(&t->model, &ws);
  assert_int_not_equal(mb_aba(&t->model, &ws, &q, &v, &tau, NULL, &qdd), 0);
  free(buf);
  mbt_tree_free(t);
}

/* xᵀ A x for a 6×6 row-major A. */
static double quad6(const double *A, const double *x) {
  double s = 0.0;
  for (int i = 0; i < 6; i++)
    for (int k = 0; k < 6; k++) s += x[i] * A[6 * i + k] * x[k];
  return s;
}

/* The pivot references of mb_aba (runtime/mb.h, the pivot rule) against quantities evaluated
 * directly from the workspace and mb_crba on random trees with every joint type: for every dof l
 * of every joint i, with d_l the pivot (the Cholesky L_ll²), D_ll = S_lᵀ IA_i S_l, the diagonal
 * with the child joints locked one level λ_l = S_lᵀ (I_i + Σ_c Xᵀ K_c X) S_l (K_c = IA_c for a
 * moving child, the same sum again through a fixed one), the composite-rigid-body diagonal
 * S_lᵀ IC_i S_l (every joint beyond locked), the base reference r and the reference R:
 *   d_l ≤ D_ll ≤ λ_l ≤ S_lᵀ IC_i S_l ≤ r_l ≤ R_l   and   R_l − r_l ≥ λ_l − D_ll
 * (the amplified lock terms are at least the lock terms), each to 1e-12 relative; and the lock
 * terms' formula, λ_l − D_ll = Σ_c y D_c⁻¹ y with y = U_cᵀ X S_l (U_c carried to i's frame as
 * forces, through fixed joints), to 1e-10 of λ_l: the 6×6 congruences of IA_c on one side, the
 * vectors U_c and the factors of D_c on the other. */
static void test_pivot_references(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      mbt_tree *t = mbt_randtree(seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &t->model;
      int nb = m->nb, nv = m->nv;
      mb_workspace ws;
      double *buf = mbt_workspace_new(m, &ws), *q = malloc(sizeof(double) * ((size_t)m->nq + 3 * (size_t)nv));
      double *v = q + m->nq, *tau = v + nv, *qdd = tau + nv, *L = malloc(36 * sizeof(double) * (size_t)(nb + 1));
      double *IC = malloc(10 * sizeof(double) * (size_t)(nb + 1)), *M = malloc(sizeof(double) * (size_t)(nv * nv + 1));
      mbt_rng g;
      mbt_rng_seed(&g, seed * 17 + (uint64_t)s);
      mbt_rand_q(&g, m, q), mbt_rand_vec(&g, nv, -1, 1, v), mbt_rand_vec(&g, nv, -5, 5, tau);
      assert_int_equal(mb_crba(m, &ws, q, M), MB_OK);
      for (int k = 0; k < 10 * (nb + 1); k++) IC[k] = ws.IC[k];
      assert_int_equal(mb_aba(m, &ws, q, v, tau, NULL, qdd), MB_OK);
      /* L_i = I_i + Σ_c Xᵀ K_c X, leaves first */
      for (int i = 0; i <= nb; i++) mbs_I_mat(m->inertia + 10 * i, L + 36 * i);
      for (int i = nb; i >= 1; i--) {
        double K[36];
        const double *src = mb_joint_nv(m->jtype[i]) ? ws.IA + 36 * i : L + 36 * i;
        mbs_mat6_to_parent(ws.XE + 9 * i, ws.Xr + 3 * i, src, K);
        for (int k = 0; k < 36; k++) L[36 * m->parent[i] + k] += K[k];
      }
      for (int i = 1; i <= nb; i++) {
        int n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
        double Ic6[36];
        mbs_I_mat(IC + 10 * i, Ic6);
        for (int l = 0; l < n; l++) {
          const double *S = ws.S + 6 * (o + l), *Ch = ws.D + 6 * o;
          double d = Ch[n * l + l] * Ch[n * l + l], D = quad6(ws.IA + 36 * i, S);
          double lam = quad6(L + 36 * i, S), crb = quad6(Ic6, S), r = ws.Dbase[o + l];
          double R = ws.Dref[o + l], tol = 1e-12 * R, lock = 0.0;
          for (int c = 1; c <= nb; c++) { /* the moving joints whose nearest moving ancestor is i */
            int a = m->parent[c], nc = mb_joint_nv(m->jtype[c]), oc = m->iv[c];
            while (a > 0 && mb_joint_nv(m->jtype[a]) == 0) a = m->parent[a];
            if (a != i || nc == 0) continue;
            double y[6], Y[6], tmp[6];
            for (int k = 0; k < nc; k++) {
              for (int e = 0; e < 6; e++) Y[e] = ws.U[6 * (oc + k) + e];
              for (int b = c; b != i; b = m->parent[b]) {
                mbs_XT_fv(ws.XE + 9 * b, ws.Xr + 3 * b, Y, tmp);
                for (int e = 0; e < 6; e++) Y[e] = tmp[e];
              }
              y[k] = 0.0;
              for (int e = 0; e < 6; e++) y[k] += S[e] * Y[e];
            }
            double x[6];
            for (int k = 0; k < nc; k++) x[k] = y[k];
            mbs_chol_solve(nc, ws.D + 6 * oc, x);
            for (int k = 0; k < nc; k++) lock += y[k] * x[k];
          }
          if (!(fabs(lam - D - lock) <= 1e-10 * lam))
            fail_msg("seed %d nb %d body %d dof %d: locked %.17g − D %.17g = %.17g, lock terms "
                     "%.17g", (int)seed, nb, i, l, lam, D, lam - D, lock);
          if (!(d <= D + tol && D <= lam + tol && lam <= crb + tol && crb <= r + tol && r <= R &&
                R - r >= lam - D - tol))
            fail_msg("seed %d nb %d body %d dof %d: d %.17g D %.17g locked %.17g crb %.17g r %.17g "
                     "R %.17g", (int)seed, nb, i, l, d, D, lam, crb, r, R);
        }
      }
      free(q), free(L), free(IC), free(M), free(buf);
      mbt_tree_free(t);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pivot_references),
      cmocka_unit_test(test_single_pendulum),      cmocka_unit_test(test_cart_pole),
      cmocka_unit_test(test_inverse_of_rnea),      cmocka_unit_test(test_inverse_of_rnea_fext),
      cmocka_unit_test(test_singular),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
