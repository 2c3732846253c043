/* test_hybrid.c — hybrid dynamics (runtime/hybrid.c). References: the partitioned dense solution
 * (M from mb_crba, b = mb_rnea(q, v, 0, fext); M_FF q̈_F = τ_F − b_F − M_FP q̈_P and
 * τ_P = M_PF q̈_F + M_PP q̈_P + b_P, solved here by Gaussian elimination with partial pivoting) on
 * seeded random trees with every joint type, floating bases, universal joints, armature and
 * external wrenches, each dof's mask drawn alone; the special cases against mb_rnea (all
 * prescribed) and mb_aba (none); a cart-pole with its cart driven, in closed form (Lagrange). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

/* The partitioned reference: qdd and tau from M, b, mask and in. */
static void partitioned(int nv, const double *M, const double *b, const int *mask,
                        const double *in, double *qdd, double *tau) {
  int F[64], nf = 0;
  double A[64 * 64], r[64];
  for (int k = 0; k < nv; k++) {
    if (mask[k]) qdd[k] = in[k];
    else tau[k] = in[k], F[nf++] = k;
  }
  for (int a = 0; a < nf; a++) {
    r[a] = in[F[a]] - b[F[a]];
    for (int k = 0; k < nv; k++)
      if (mask[k]) r[a] -= M[nv * F[a] + k] * in[k];
    for (int c = 0; c < nf; c++) A[nf * a + c] = M[nv * F[a] + F[c]];
  }
  assert_true(mbt_gauss(nf, A, r) > 0.0); /* M_FF ≻ 0 */
  for (int a = 0; a < nf; a++) qdd[F[a]] = r[a];
  for (int k = 0; k < nv; k++) {
    if (!mask[k]) continue;
    double s = b[k];
    for (int c = 0; c < nv; c++) s += M[nv * k + c] * qdd[c];
    tau[k] = s;
  }
}

typedef struct fix {
  mbt_tree *t;
  double *buf, *arm;
  mb_workspace ws;
} fix;

static void fix_setup(fix *f, uint64_t seed, int nb, int floating) {
  f->t = seed % 3 == 0 ? mbt_randtree_universal(seed, nb, floating)
                       : mbt_randtree(seed, nb, floating);
  f->arm = NULL;
  if (seed % 4 == 1) { /* a rotor inertia on every dof */
    mbt_rng g;
    mbt_rng_seed(&g, seed + 99);
    f->arm = malloc(sizeof(double) * (size_t)f->t->model.nv);
    mbt_rand_vec(&g, f->t->model.nv, 0.0, 0.2, f->arm);
    f->t->model.armature = f->arm;
  }
  f->buf = mbt_workspace_new(&f->t->model, &f->ws);
}

static void fix_teardown(fix *f) {
  free(f->buf), free(f->arm);
  mbt_tree_free(f->t);
}

/* Random masks (each dof alone, then all 0, all 1, and a floating base free with every joint
 * prescribed) against the partitioned dense solution. */
static void test_against_partitioned(void **state) {
  (void)state;
  fix f;
  double worst = 0.0;
  MBT_FOR_TREES(fix_setup, fix_teardown, f) {
    const mb_model *m = &f.t->model;
    int nv = m->nv, mask[64];
    double q[64], v[64], in[64], fext[6 * 64], M[64 * 64], b[64], zero[64] = {0};
    double qdd[64], tau[64], wq[64], wt[64];
    mbt_rng g;
    mbt_rng_seed(&g, seed_ * 131 + (uint64_t)s_);
    assert_true(nv <= 64 && m->nb < 64);
    for (int trial = 0; trial < 6; trial++) {
      mbt_rand_q(&g, m, q);
      mbt_rand_vec(&g, nv, -1, 1, v);
      mbt_rand_vec(&g, nv, -2, 2, in);
      mbt_rand_vec(&g, 6 * (m->nb + 1), -1, 1, fext);
      const double *fx = trial % 2 ? fext : NULL;
      for (int k = 0; k < nv; k++)
        mask[k] = trial == 0 ? 0 : trial == 1 ? 1 : trial == 2 ? k >= 6 : mbt_randint(&g, 0, 1);
      if (trial == 2 && seed_ % 2 == 0) continue; /* no floating base */
      assert_int_equal(mb_crba(m, &f.ws, q, M), MB_OK);
      assert_int_equal(mb_rnea(m, &f.ws, q, v, zero, fx, b), MB_OK);
      partitioned(nv, M, b, mask, in, wq, wt);
      assert_int_equal(mb_hybrid(m, &f.ws, q, v, mask, in, fx, qdd, tau), MB_OK);
      double sq = fmax(mbt_max_abs(wq, (size_t)nv), 1.0);
      double st = fmax(mbt_max_abs(wt, (size_t)nv), 1.0);
      MBT_ASSERT_NEAR(qdd, wq, nv, 1e-9 * sq);
      MBT_ASSERT_NEAR(tau, wt, nv, 1e-9 * st);
      for (int k = 0; k < nv; k++) { /* the given halves copied exactly */
        if (mask[k]) assert_true(qdd[k] == in[k]);
        else assert_true(tau[k] == in[k]);
        worst = fmax(worst, fmax(fabs(qdd[k] - wq[k]) / sq, fabs(tau[k] - wt[k]) / st));
      }
    }
  }
  print_message("hybrid vs partitioned M, h: worst relative difference %.2e\n", worst);
}

/* All prescribed: τ = mb_rnea(q, v, in); none: q̈ = mb_aba(q, v, in) — the same algorithms' own
 * arithmetic, so to rounding. */
static void test_special_cases(void **state) {
  (void)state;
  fix f;
  MBT_FOR_TREES(fix_setup, fix_teardown, f) {
    const mb_model *m = &f.t->model;
    int nv = m->nv, ones[64], zeros[64];
    double q[64], v[64], in[64], qdd[64], tau[64], want[64];
    mbt_rng g;
    mbt_rng_seed(&g, seed_ * 7 + (uint64_t)s_);
    for (int k = 0; k < nv; k++) ones[k] = 1, zeros[k] = 0;
    mbt_rand_q(&g, m, q);
    mbt_rand_vec(&g, nv, -1, 1, v);
    mbt_rand_vec(&g, nv, -2, 2, in);
    assert_int_equal(mb_hybrid(m, &f.ws, q, v, ones, in, NULL, qdd, tau), MB_OK);
    assert_int_equal(mb_rnea(m, &f.ws, q, v, in, NULL, want), MB_OK);
    MBT_ASSERT_REL(tau, want, nv, 1e-12);
    assert_int_equal(mb_hybrid(m, &f.ws, q, v, zeros, in, NULL, qdd, tau), MB_OK);
    assert_int_equal(mb_aba(m, &f.ws, q, v, in, NULL, want), MB_OK);
    MBT_ASSERT_REL(qdd, want, nv, 1e-10);
  }
}

/* Cart-pole (mbt_cart_pole, test_aba.c's): the cart's acceleration ẍ prescribed, the pole's
 * torque τ given. Lagrange: (J + mp l²) θ̈ = τ + mp g l sin θ − mp l cos θ ẍ and
 * F = (mc + mp) ẍ + mp l cos θ θ̈ − mp l sin θ θ̇². */
static void test_cart_pole_driven(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 48);
  for (int trial = 0; trial < 20; trial++) {
    double mc = mbt_uniform(&g, 0.5, 3), mp = mbt_uniform(&g, 0.1, 1), l = mbt_uniform(&g, .2, 1);
    double J = mbt_uniform(&g, 0.001, 0.05);
    mbt_tree *t = mbt_cart_pole(mc, mp, l, J);
    mb_workspace ws;
    double *buf = mbt_workspace_new(&t->model, &ws);
    double th = mbt_uniform(&g, -3, 3), q[2] = {mbt_uniform(&g, -1, 1), th};
    double v[2] = {mbt_uniform(&g, -1, 1), mbt_uniform(&g, -2, 2)};
    double in[2] = {mbt_uniform(&g, -3, 3), mbt_uniform(&g, -2, 2)}, qdd[2], tau[2];
    int mask[2] = {1, 0};
    double thdd = (in[1] + mp * 9.81 * l * sin(th) - mp * l * cos(th) * in[0]) / (J + mp * l * l);
    double F = (mc + mp) * in[0] + mp * l * cos(th) * thdd - mp * l * sin(th) * v[1] * v[1];
    assert_int_equal(mb_hybrid(&t->model, &ws, q, v, mask, in, NULL, qdd, tau), MB_OK);
    MBT_ASSERT_NEAR1(qdd[1], thdd, 1e-12 * fmax(1.0, fabs(thdd)));
    MBT_ASSERT_NEAR1(tau[0], F, 1e-12 * fmax(1.0, fabs(F)));
    free(buf);
    mbt_tree_free(t);
  }
}

/* Bad arguments: a mask entry other than 0 or 1, NULL pointers. */
static void test_invalid(void **state) {
  (void)state;
  fix f;
  fix_setup(&f, 2, 5, 0);
  const mb_model *m = &f.t->model;
  int mask[64] = {0};
  double q[64], v[64] = {0}, in[64] = {0}, qdd[64], tau[64];
  mb_neutral(m, q);
  assert_int_equal(mb_hybrid(m, &f.ws, q, v, mask, in, NULL, qdd, tau), MB_OK);
  mask[1] = 2;
  assert_int_equal(mb_hybrid(m, &f.ws, q, v, mask, in, NULL, qdd, tau), MB_EINVAL);
  mask[1] = -1;
  assert_int_equal(mb_hybrid(m, &f.ws, q, v, mask, in, NULL, qdd, tau), MB_EINVAL);
  mask[1] = 0;
  assert_int_equal(mb_hybrid(m, &f.ws, q, v, NULL, in, NULL, qdd, tau), MB_EINVAL);
  assert_int_equal(mb_hybrid(m, &f.ws, q, v, mask, NULL, NULL, qdd, tau), MB_EINVAL);
  assert_int_equal(mb_hybrid(m, &f.ws, q, v, mask, in, NULL, qdd, NULL), MB_EINVAL);
  fix_teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_partitioned),
      cmocka_unit_test(test_special_cases),
      cmocka_unit_test(test_cart_pole_driven),
      cmocka_unit_test(test_invalid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
