/* test_ltdl.c — the sparse factorization M = Lᵀ D L and forward dynamics by the mass matrix
 * (runtime/ltdl.c). References: M from mb_crba (reproduced by the product of the factors), the
 * body tree (the expanded parent array must follow it), and the articulated-body algorithm
 * (crba_fd = aba), on seeded random trees with every joint type, with and without floating base. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

typedef struct fixture {
  mbt_tree *t;
  mb_workspace ws;
  double *buf, *q, *v, *tau, *x, *y, *M, *LD, *L, *P;
  int *body; /* body of every dof */
} fixture;

static void setup(fixture *f, uint64_t seed, int nb, int floating) {
  f->t = mbt_randtree(seed, nb, floating);
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv;
  f->buf = mbt_workspace_new(m, &f->ws);
  f->q = malloc(sizeof(double) * ((size_t)m->nq + 4 * nv + 4 * nv * nv + 1));
  f->v = f->q + m->nq, f->tau = f->v + nv, f->x = f->tau + nv, f->y = f->x + nv;
  f->M = f->y + nv, f->LD = f->M + nv * nv, f->L = f->LD + nv * nv, f->P = f->L + nv * nv;
  f->body = malloc(sizeof(int) * (nv + 1));
  for (int i = 1; i <= m->nb; i++)
    for (int k = 0; k < mb_joint_nv(m->jtype[i]); k++) f->body[m->iv[i] + k] = i;
  mbt_rng g;
  mbt_rng_seed(&g, seed * 11 + 5);
  mbt_rand_q(&g, m, f->q), mbt_rand_vec(&g, m->nv, -1, 1, f->v);
  mbt_rand_vec(&g, m->nv, -5, 5, f->tau);
  mb_crba(m, &f->ws, f->q, f->M);
}

static void teardown(fixture *f) {
  free(f->body), free(f->q), free(f->buf);
  mbt_tree_free(f->t);
}

/* 1 if body a is body b or one of its ancestors, from the model's parent array. */
static int supports(const mb_model *m, int a, int b) {
  for (; b > 0; b = m->parent[b])
    if (b == a) return 1;
  return 0;
}

/* λ follows the body tree: λ(k) < k, and i lies on k's λ chain iff i < k and body(i) supports
 * body(k). Then L_ki = 0 exactly off that pattern (zero fill-in), and with L built from the
 * pattern alone, Lᵀ D L = M to 1e-12 relative. */
static void test_factors(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &f.t->model;
      int n = m->nv;
      memcpy(f.LD, f.M, sizeof(double) * (size_t)(n * n));
      assert_int_equal(mb_ltdl(m, &f.ws, f.LD), 0);
      for (int k = 0; k < n; k++) {
        assert_true(f.ws.lam[k] < k && f.ws.lam[k] >= -1);
        for (int i = 0; i < k; i++) {
          int on_chain = 0;
          for (int j = (int)f.ws.lam[k]; j >= 0; j = (int)f.ws.lam[j]) on_chain |= (j == i);
          assert_int_equal(on_chain, supports(m, f.body[i], f.body[k]));
          if (!on_chain) assert_true(f.LD[k * n + i] == 0.0);
          f.L[k * n + i] = on_chain ? f.LD[k * n + i] : 0.0;
        }
        f.L[k * n + k] = 1.0;
        for (int i = k + 1; i < n; i++) f.L[k * n + i] = 0.0;
        assert_true(f.LD[k * n + k] > 0.0);
      }
      /* P = Lᵀ D L */
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double p = 0.0;
          for (int k = 0; k < n; k++) p += f.L[k * n + i] * f.LD[k * n + k] * f.L[k * n + j];
          f.P[i * n + j] = p;
        }
      MBT_ASSERT_REL(f.P, f.M, n * n, 1e-12);
      teardown(&f);
    }
}

/* mb_ltdl_solve: M (M⁻¹ b) = b to 1e-10 relative, M from mb_crba. */
static void test_solve(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &f.t->model;
      int n = m->nv;
      memcpy(f.LD, f.M, sizeof(double) * (size_t)(n * n));
      memcpy(f.x, f.tau, sizeof(double) * (size_t)n);
      assert_int_equal(mb_ltdl(m, &f.ws, f.LD), 0);
      mb_ltdl_solve(m, &f.ws, f.LD, f.x);
      for (int i = 0; i < n; i++) {
        f.y[i] = 0.0;
        for (int j = 0; j < n; j++) f.y[i] += f.M[i * n + j] * f.x[j];
      }
      MBT_ASSERT_REL(f.y, f.tau, n, 1e-10);
      teardown(&f);
    }
}

/* crba_fd = aba to 1e-10 relative: two algorithms, one forward dynamics. */
static void test_crba_fd_equals_aba(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &f.t->model;
      assert_int_equal(mb_crba_fd(m, &f.ws, f.q, f.v, f.tau, f.x), 0);
      assert_int_equal(mb_aba(m, &f.ws, f.q, f.v, f.tau, NULL, f.y), 0);
      MBT_ASSERT_REL(f.x, f.y, m->nv, 1e-10);
      teardown(&f);
    }
}

/* A massless body on the last joint makes M singular: a pivot fails. */
static void test_singular(void **state) {
  (void)state;
  double y[3] = {0, 1, 0}, c[3] = {0.5, 0, 0}, Ic[6] = {.01, .01, .01, 0, 0, 0};
  double q[2] = {0.3, -0.2}, v[2] = {0, 0}, tau[2] = {1, 1}, qdd[2];
  mbt_tree *t = mbt_tree_new(2);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, y, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, y, NULL, c);
  mbt_tree_body(t, 1, 1.0, c, Ic);
  mbt_tree_finish(t);
  mb_workspace ws;
  double *buf = malloc(mb_workspace_size(&t->model));
  mb_workspace_init(&ws, &t->model, buf);
  assert_int_not_equal(mb_crba_fd(&t->model, &ws, q, v, tau, qdd), 0);
  free(buf);
  mbt_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_factors),
      cmocka_unit_test(test_solve),
      cmocka_unit_test(test_crba_fd_equals_aba),
      cmocka_unit_test(test_singular),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
