/* test_cfa.c — the Constraint Force Algorithm (runtime/cfa.c) on seeded random trees with every
 * joint type (fixed joints contribute six constraint rows, floating joints none), arbitrary axes,
 * helical pitches, floating bases and branching. mb_randtree's bodies have m ≥ 0.5 and principal
 * COM inertias ≥ 0.01 m, so every I_j is invertible. References: the articulated-body algorithm
 * (q̈), inverse dynamics (the wrenches of mb_joint_wrenches(q, v, q̈), and Sᵀ w = τ). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

typedef struct fixture {
  mbt_tree *t;
  mb_workspace ws;
  double *buf, *q, *v, *tau, *qdd, *ref, *w, *wref;
} fixture;

static void setup(fixture *f, uint64_t seed, int nb, int floating) {
  f->t = mbt_randtree(seed, nb, floating);
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv, nw = 6 * ((size_t)m->nb + 1);
  f->buf = mbt_workspace_new(m, &f->ws);
  f->q = malloc(sizeof(double) * ((size_t)m->nq + 4 * nv + 2 * nw));
  f->v = f->q + m->nq, f->tau = f->v + nv, f->qdd = f->tau + nv, f->ref = f->qdd + nv;
  f->w = f->ref + nv, f->wref = f->w + nw;
  mbt_rng g;
  mbt_rng_seed(&g, seed * 19 + 7);
  mbt_rand_q(&g, m, f->q), mbt_rand_vec(&g, m->nv, -1, 1, f->v);
  mbt_rand_vec(&g, m->nv, -5, 5, f->tau);
  assert_int_equal(mb_cfa(m, &f->ws, f->q, f->v, f->tau, f->qdd, f->w), 0);
}

static void teardown(fixture *f) {
  free(f->q), free(f->buf);
  mbt_tree_free(f->t);
}

/* cfa = aba to 1e-10 relative: two algorithms, one forward dynamics. */
static void test_equals_aba(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &f.t->model;
      assert_int_equal(mb_aba(m, &f.ws, f.q, f.v, f.tau, NULL, f.ref), 0);
      MBT_ASSERT_REL(f.qdd, f.ref, m->nv, 1e-10);
      teardown(&f);
    }
}

/* w = mb_joint_wrenches(q, v, q̈) to 1e-10 relative; Sᵢᵀ wᵢ = τᵢ to 1e-10 relative. */
static void test_wrenches(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &f.t->model;
      mb_joint_wrenches(m, &f.ws, f.q, f.v, f.qdd, f.wref);
      MBT_ASSERT_REL(f.w, f.wref, 6 * (m->nb + 1), 1e-10);
      for (int i = 1; i <= m->nb; i++) {
        double S[36];
        int n = mb_joint_nv(m->jtype[i]);
        mb_joint_S(m, i, S);
        for (int j = 0; j < n; j++) {
          f.ref[j] = 0.0;
          for (int k = 0; k < 6; k++) f.ref[j] += S[6 * j + k] * f.w[6 * i + k];
        }
        double scale = fmax(1.0, mbt_max_abs(f.tau, (size_t)m->nv));
        MBT_ASSERT_NEAR(f.ref, f.tau + m->iv[i], n, 1e-10 * scale);
      }
      teardown(&f);
    }
}

/* The complements T: Sᵀ T = 0 and Tᵀ T = 1 for every joint of the random trees. */
static void test_complements(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
    mbt_tree *t = mbt_randtree(seed, 25, (int)(seed % 2));
    const mb_model *m = &t->model;
    for (int i = 1; i <= m->nb; i++) {
      double S[36], T[36];
      int n = mb_joint_nv(m->jtype[i]);
      mb_joint_S(m, i, S), mb_joint_T(m, i, T);
      for (int a = 0; a < 6 - n; a++) {
        for (int b = 0; b < n; b++) {
          double d = 0.0;
          for (int k = 0; k < 6; k++) d += S[6 * b + k] * T[6 * a + k];
          MBT_ASSERT_NEAR1(d, 0.0, 1e-14);
        }
        for (int b = 0; b < 6 - n; b++) {
          double d = 0.0;
          for (int k = 0; k < 6; k++) d += T[6 * b + k] * T[6 * a + k];
          MBT_ASSERT_NEAR1(d, (double)(a == b), 1e-14);
        }
      }
    }
    mbt_tree_free(t);
  }
}

/* A point mass (zero rotational inertia) or a massless body has no I⁻¹: mb_cfa returns -1. */
static void test_singular_body(void **state) {
  (void)state;
  double y[3] = {0, 1, 0}, c[3] = {0.5, 0, 0}, zero[6] = {0}, q = 0.3, v = 0, tau = 1, qdd, w[12];
  for (int massless = 0; massless < 2; massless++) {
    mbt_tree *t = mbt_tree_new(1);
    mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, y, NULL, NULL);
    if (!massless) mbt_tree_body(t, 1, 1.0, c, zero);
    mbt_tree_finish(t);
    mb_workspace ws;
    double *buf = malloc(mb_workspace_size(&t->model));
    mb_workspace_init(&ws, &t->model, buf);
    assert_int_equal(mb_cfa(&t->model, &ws, &q, &v, &tau, &qdd, w), -1);
    free(buf);
    mbt_tree_free(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_equals_aba),
      cmocka_unit_test(test_wrenches),
      cmocka_unit_test(test_complements),
      cmocka_unit_test(test_singular_body),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
