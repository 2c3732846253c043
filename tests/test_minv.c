/* test_minv.c — M⁻¹ by the operator factorization (runtime/minv.c) on seeded random trees with
 * every joint type, with and without floating base. References: M from mb_crba (M⁻¹ M = 1), and
 * the columns of M⁻¹ from the articulated-body algorithm, aba(q, 0, e_j) − aba(q, 0, 0). */
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
  double *buf, *q, *M, *Minv, *P, *e, *a, *a0;
} fixture;

static void setup(fixture *f, uint64_t seed, int nb, int floating) {
  f->t = mbt_randtree(seed, nb, floating);
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv;
  f->buf = mbt_workspace_new(m, &f->ws);
  f->q = malloc(sizeof(double) * ((size_t)m->nq + 3 * nv * nv + 3 * nv + 1));
  f->M = f->q + m->nq, f->Minv = f->M + nv * nv, f->P = f->Minv + nv * nv;
  f->e = f->P + nv * nv, f->a = f->e + nv, f->a0 = f->a + nv;
  mbt_rng g;
  mbt_rng_seed(&g, seed * 17 + 9);
  mbt_rand_q(&g, m, f->q);
  mb_crba(m, &f->ws, f->q, f->M);
  assert_int_equal(mb_minv(m, &f->ws, f->q, f->Minv), 0);
}

static void teardown(fixture *f) {
  free(f->q), free(f->buf);
  mbt_tree_free(f->t);
}

/* M⁻¹ M = 1 to 1e-10, M⁻¹ exactly symmetric. */
static void test_inverse_of_crba(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      int n = f.t->model.nv;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double p = 0.0;
          for (int k = 0; k < n; k++) p += f.Minv[i * n + k] * f.M[k * n + j];
          f.P[i * n + j] = p, f.e[0] = (i == j);
          MBT_ASSERT_NEAR1(f.P[i * n + j], f.e[0], 1e-10);
          assert_true(f.Minv[i * n + j] == f.Minv[j * n + i]);
        }
      teardown(&f);
    }
}

/* Column j of M⁻¹ = aba(q, 0, e_j) − aba(q, 0, 0) to 1e-10 relative. */
static void test_columns_from_aba(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &f.t->model;
      int n = m->nv;
      for (int k = 0; k < n; k++) f.e[k] = 0.0;
      assert_int_equal(mb_aba(m, &f.ws, f.q, NULL, f.e, NULL, f.a0), 0);
      for (int j = 0; j < n; j++) {
        for (int k = 0; k < n; k++) f.e[k] = (k == j);
        assert_int_equal(mb_aba(m, &f.ws, f.q, NULL, f.e, NULL, f.a), 0);
        for (int k = 0; k < n; k++) f.a[k] -= f.a0[k], f.e[k] = f.Minv[k * n + j];
        MBT_ASSERT_REL(f.e, f.a, n, 1e-10);
      }
      teardown(&f);
    }
}

/* A massless leaf body makes M singular: mb_minv reports it. */
static void test_singular(void **state) {
  (void)state;
  double y[3] = {0, 1, 0}, c[3] = {0.5, 0, 0}, Ic[6] = {.01, .01, .01, 0, 0, 0}, q[2] = {.3, .2};
  double Minv[4];
  mbt_tree *t = mbt_tree_new(2);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, y, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_PRISMATIC, y, NULL, c);
  mbt_tree_body(t, 1, 1.0, c, Ic);
  mbt_tree_finish(t);
  mb_workspace ws;
  double *buf = malloc(mb_workspace_size(&t->model));
  mb_workspace_init(&ws, &t->model, buf);
  assert_int_not_equal(mb_minv(&t->model, &ws, q, Minv), 0);
  free(buf);
  mbt_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_inverse_of_crba),
      cmocka_unit_test(test_columns_from_aba),
      cmocka_unit_test(test_singular),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
