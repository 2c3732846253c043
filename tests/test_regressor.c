/* test_regressor.c — the runtime's regressors (runtime/regressor.c, mb.h "Inertial parameters and
 * regressors"). References:
 *   - an analytic case: one revolute joint about z under gravity along −y at q = 0, q̈ = 1:
 *     τ = Izz q̈ + g m cx, so the row is 9.81 in the m·cx column, 1 in the Izz column, 0 elsewhere;
 *   - another algorithm: Y π = mb_rnea for the model's own parameters and for arbitrary ones (the
 *     model's inertias replaced by π: the identity is linear, so π need not be physical), on
 *     random trees with every joint type, with and without a floating base, and on real robots;
 *     y_k · π and y_p · π against mb_energy;
 *   - structure: joint j's row has nonzero entries only in the columns of j's body and its
 *     descendants (τ_j is the wrench j transmits, which only its subtree's inertia enters);
 *   - Pinocchio's parameter order, by distinct values in every slot;
 *   - the joints' friction, armature and offset columns against the sum they stand for.
 * Tolerances: 1e-12 relative to the largest entry compared (the two sides sum the same terms in a
 * different order: rounding of a few ulps times the tree's depth). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbt_robot.h"

/* Every array a check needs for model m. */
typedef struct bufs {
  double *q, *v, *a, *tau, *Ytau, *Y, *pi, *yk, *yp, *inertia0;
  size_t nreg;
} bufs;

static void bufs_new(bufs *b, const mb_model *m) {
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nb1 = (size_t)m->nb + 1;
  b->nreg = (size_t)MB_NPARAM * (size_t)m->nb;
  b->q = malloc(sizeof(double) * (nq + 4 * nv + nv * b->nreg + 3 * b->nreg + 10 * nb1));
  assert_non_null(b->q);
  b->v = b->q + nq, b->a = b->v + nv, b->tau = b->a + nv, b->Ytau = b->tau + nv;
  b->Y = b->Ytau + nv, b->pi = b->Y + nv * b->nreg, b->yk = b->pi + b->nreg;
  b->yp = b->yk + b->nreg, b->inertia0 = b->yp + b->nreg;
}

static void mat_vec(const double *Y, const double *x, size_t rows, size_t cols, double *out) {
  for (size_t r = 0; r < rows; r++) {
    double s = 0.0;
    for (size_t c = 0; c < cols; c++) s += Y[r * cols + c] * x[c];
    out[r] = s;
  }
}

static double dot(const double *x, const double *y, size_t n) {
  double s = 0.0;
  for (size_t k = 0; k < n; k++) s += x[k] * y[k];
  return s;
}

/* Y π = rnea and the energies for the model's π, then for a random π written into the model's
 * inertias (restored after); the zero pattern of Y. m's inertia array must be writable. */
static void check_model(mb_model *m, mb_workspace *ws, mbt_rng *g, int states) {
  bufs b;
  bufs_new(&b, m);
  size_t nv = (size_t)m->nv;
  double *inertia = (double *)(void *)m->inertia, e[2];
  memcpy(b.inertia0, inertia, sizeof(double) * 10 * ((size_t)m->nb + 1));
  for (int s = 0; s < states; s++) {
    mbt_rand_q(g, m, b.q), mbt_rand_vec(g, m->nv, -1, 1, b.v), mbt_rand_vec(g, m->nv, -1, 1, b.a);
    int own = s % 2 == 0; /* odd states: a random, possibly non-physical π */
    if (own) {
      assert_int_equal(mb_model_params(m, b.pi), MB_OK);
    } else {
      mbt_rand_vec(g, (int)b.nreg, -2, 2, b.pi);
      for (int i = 1; i <= m->nb; i++)
        mb_inertia_of_params(b.pi + MB_NPARAM * (i - 1), inertia + 10 * i);
    }
    assert_int_equal(mb_rnea(m, ws, b.q, b.v, b.a, NULL, b.tau), MB_OK);
    if (own) assert_int_equal(mb_energy(m, ws, b.q, b.v, e), MB_OK); /* it needs a mass > 0 */
    memcpy(inertia, b.inertia0, sizeof(double) * 10 * ((size_t)m->nb + 1));
    assert_int_equal(mb_regressor(m, ws, b.q, b.v, b.a, b.Y), MB_OK);
    mat_vec(b.Y, b.pi, nv, b.nreg, b.Ytau);
    MBT_ASSERT_REL(b.Ytau, b.tau, nv, 1e-12);
    assert_int_equal(mb_energy_regressor(m, ws, b.q, b.v, b.yk, b.yp), MB_OK);
    if (own) {
      double T = dot(b.yk, b.pi, b.nreg), U = dot(b.yp, b.pi, b.nreg);
      MBT_ASSERT_NEAR1(T, e[0], 1e-12 * fmax(1.0, fabs(e[0])));
      MBT_ASSERT_NEAR1(U, e[1], 1e-12 * fmax(1.0, fabs(e[1])));
    }
    /* structure: body i's columns vanish on the rows of every joint j not on i's path to root */
    for (int j = 1; j <= m->nb; j++)
      for (int i = 1; i <= m->nb; i++) {
        int on_path = 0;
        for (int k = i; k > 0; k = m->parent[k]) on_path |= k == j;
        if (on_path) continue;
        for (int c = 0; c < mb_joint_nv(m->jtype[j]); c++)
          for (int k = 0; k < MB_NPARAM; k++)
            assert_true(b.Y[(size_t)(m->iv[j] + c) * b.nreg + (size_t)(MB_NPARAM * (i - 1) + k)] ==
                        0.0);
      }
  }
  free(b.q);
}

/* The analytic single joint (see the head of the file). */
static void test_pendulum(void **state) {
  (void)state;
  mbt_tree *t = mbt_tree_new(1);
  double z[3] = {0, 0, 1}, r[3] = {0, 0, 0}, c[3] = {0.3, -0.2, 0.1}, Ic[6] = {1, 2, 3, .1, .2, .3};
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, z, NULL, r);
  mbt_tree_body(t, 1, 2.0, c, Ic);
  mbt_tree_finish(t);
  t->model.gravity[0] = 0, t->model.gravity[1] = -9.81, t->model.gravity[2] = 0;
  mb_workspace ws;
  double *buf = mbt_workspace_new(&t->model, &ws), q = 0, v = 0, a = 1, Y[MB_NPARAM];
  double want[MB_NPARAM] = {0, 9.81, 0, 0, 0, 0, 0, 0, 0, 1};
  assert_int_equal(mb_regressor(&t->model, &ws, &q, &v, &a, Y), MB_OK);
  MBT_ASSERT_NEAR(Y, want, MB_NPARAM, 1e-15);
  free(buf);
  mbt_tree_free(t);
}

/* Pinocchio's order: m, mcx, mcy, mcz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz. */
static void test_order(void **state) {
  (void)state;
  /* the model's form: m, hx hy hz, ixx iyy izz ixy ixz iyz */
  double I[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, pi[MB_NPARAM], back[10];
  double want[MB_NPARAM] = {1, 2, 3, 4, 5, 8, 6, 9, 10, 7};
  mb_params_of_inertia(I, pi);
  MBT_ASSERT_NEAR(pi, want, MB_NPARAM, 0.0);
  mb_inertia_of_params(pi, back);
  MBT_ASSERT_NEAR(back, I, 10, 0.0);
}

static void test_random_trees(void **state) {
  (void)state;
  for (int k = 0; k < MBT_NSIZES; k++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      mbt_tree *t = mbt_randtree(seed, mbt_sizes[k], (int)(seed % 2));
      mb_workspace ws;
      double *buf = mbt_workspace_new(&t->model, &ws);
      mbt_rng g;
      mbt_rng_seed(&g, 100 + seed);
      check_model(&t->model, &ws, &g, 4);
      free(buf);
      mbt_tree_free(t);
    }
}

/* A robot read by the generator's loader (its runtime model; merged fixed joints included). */
static void check_robot(const char *rel, int floating, int expect) {
  mbt_robot r;
  mbt_robot_open(&r, rel, floating);
  mb_workspace ws;
  double *buf = mbt_workspace_new(&r.rt.model, &ws);
  mbt_rng g;
  mbt_rng_seed(&g, 7);
  if (expect == MB_OK) {
    check_model(&r.rt.model, &ws, &g, 6);
  } else { /* flexible bodies: not covered, refused */
    bufs b;
    bufs_new(&b, &r.rt.model);
    memset(b.q, 0, sizeof(double) * (size_t)r.rt.model.nq);
    assert_int_equal(mb_regressor(&r.rt.model, &ws, b.q, NULL, NULL, b.Y), expect);
    assert_int_equal(mb_energy_regressor(&r.rt.model, &ws, b.q, b.v, b.yk, b.yp), expect);
    free(b.q);
  }
  free(buf);
  mbt_robot_close(&r);
}

static void test_robots(void **state) {
  (void)state;
  check_robot("examples/arm7.mbd", 0, MB_OK);
  check_robot("examples/urdf/panda.urdf", 0, MB_OK);
  check_robot("examples/urdf/solo12.urdf", 1, MB_OK);
  check_robot("examples/gimbal.mbd", 0, MB_OK);
  check_robot("examples/flexible_arm.mbd", 0, MB_EINVAL);
}

/* The joints' columns: each 1-dof joint's four on its own row, in body order; against the sum
 * they stand for, with friction, armature and offset values chosen per joint; the Coulomb sign
 * exact outside its band, linear inside, continuous at its edges. */
static void test_joint_columns(void **state) {
  (void)state;
  mbt_tree *t = mbt_randtree(2, 12, 1); /* every joint type, a floating base */
  const mb_model *m = &t->model;
  int n1 = mb_joint_count1(m), nv = m->nv, col = 0;
  size_t ncol = 4 * (size_t)n1;
  assert_true(n1 > 0 && n1 < m->nb);
  double *Yj = malloc(sizeof(double) * ((size_t)nv * ncol + ncol + 4 * (size_t)nv));
  double *p = Yj + (size_t)nv * ncol, *v = p + ncol, *a = v + nv, *got = a + nv, *want = got + nv;
  mbt_rng g;
  mbt_rng_seed(&g, 5);
  mbt_rand_vec(&g, nv, -1, 1, v), mbt_rand_vec(&g, nv, -1, 1, a);
  mbt_rand_vec(&g, (int)ncol, 0.1, 2, p);
  assert_int_equal(mb_joint_regressor(m, v, a, Yj), MB_OK);
  mat_vec(Yj, p, (size_t)nv, ncol, got);
  memset(want, 0, sizeof(double) * (size_t)nv);
  for (int i = 1; i <= m->nb; i++) {
    if (mb_joint_nv(m->jtype[i]) != 1) continue;
    int k = m->iv[i];
    double s = fabs(v[k]) >= MB_COULOMB_BAND ? (v[k] > 0 ? 1.0 : -1.0) : v[k] / MB_COULOMB_BAND;
    want[k] = p[col] * v[k] + p[col + 1] * s + p[col + 2] * a[k] + p[col + 3];
    col += 4;
  }
  MBT_ASSERT_NEAR(got, want, nv, 1e-15);
  assert_true(mb_coulomb_sign(0.5) == 1.0 && mb_coulomb_sign(-MB_COULOMB_BAND) == -1.0);
  MBT_ASSERT_NEAR1(mb_coulomb_sign(0.25 * MB_COULOMB_BAND), 0.25, 1e-15);
  assert_true(mb_coulomb_sign(0.0) == 0.0);
  assert_int_equal(mb_joint_regressor(m, v, a, NULL), MB_EINVAL);
  free(Yj);
  mbt_tree_free(t);
}

static void test_arguments(void **state) {
  (void)state;
  mbt_tree *t = mbt_randtree(3, 5, 1);
  mb_workspace ws;
  double *buf = mbt_workspace_new(&t->model, &ws), q[40] = {0}, Y[6 * 50], yk[50], yp[50];
  q[6] = 1.0; /* a unit quaternion for the floating base */
  assert_int_equal(mb_regressor(&t->model, &ws, NULL, NULL, NULL, Y), MB_EINVAL);
  assert_int_equal(mb_regressor(&t->model, &ws, q, NULL, NULL, NULL), MB_EINVAL);
  assert_int_equal(mb_energy_regressor(&t->model, &ws, q, NULL, yk, NULL), MB_EINVAL);
  assert_int_equal(mb_energy_regressor(&t->model, &ws, q, NULL, NULL, yp), MB_EINVAL);
  assert_int_equal(mb_model_params(NULL, yk), MB_EINVAL);
  free(buf);
  mbt_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum),   cmocka_unit_test(test_order),
      cmocka_unit_test(test_random_trees), cmocka_unit_test(test_robots),
      cmocka_unit_test(test_joint_columns), cmocka_unit_test(test_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
