/* test_armature.c — the rotor inertias of mb_model.armature (runtime/mb.h) in every dynamics
 * function of the runtime. References:
 *   - analytic: a pendulum (revolute joint, point mass m at distance l, armature Ia):
 *     M = m l² + Ia, and q̈ = (τ − m g l sin q) / (m l² + Ia);
 *   - identities on random trees (every joint type, floating bases): crba's M with armature is
 *     the M without plus diag(armature); rnea's τ gains armature ⊙ q̈; aba inverts rnea
 *     (aba(rnea(q̈)) = q̈, so D carries the armature); minv is the inverse of crba's M;
 *     crba_fd agrees with aba; rnea_derivatives' M is crba's; the kinetic energy is ½ vᵀ M v;
 *   - the same on the models of tests/jprops/ read by the generator's front end (the armature
 *     its `armature` statements give, per dof), a flexible arm's (whose mb_minv factors M) among
 *     them;
 *   - refusals: mb_cfa returns MB_EINVAL (docs/cfa.md "Armature"; mb_rcr with armature is
 *     checked against mb_fd_loops by test_rcr.c). */
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
#include "mbt_robot.h"

enum { NV_MAX = 64 };

static void test_pendulum(void **state) {
  (void)state;
  const double m = 2.0, l = 0.5, Ia = 0.3, g = 9.81, q = 0.7, tau = 1.25;
  mbt_tree *t = mbt_tree_new(1);
  const double y[3] = {0, 1, 0}, r[3] = {0, 0, 0}, c[3] = {0, 0, -l}, Ic[6] = {0};
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, y, NULL, r);
  mbt_tree_body(t, 1, m, c, Ic);
  mbt_tree_finish(t);
  double arm[1] = {Ia};
  t->model.armature = arm;
  mb_workspace ws;
  double *buf = mbt_workspace_new(&t->model, &ws), M, qdd, v = 0.4;
  assert_int_equal(mb_model_check(&t->model, NULL, 0), 0);
  assert_int_equal(mb_crba(&t->model, &ws, &q, &M), MB_OK);
  MBT_ASSERT_NEAR1(M, m * l * l + Ia, 1e-14);
  assert_int_equal(mb_aba(&t->model, &ws, &q, &v, &tau, NULL, &qdd), MB_OK);
  /* the mass at (0, 0, −l) turned by q about y, gravity −z: τ_g = −m g l sin q */
  MBT_ASSERT_NEAR1(qdd, (tau - m * g * l * sin(q)) / (m * l * l + Ia), 1e-13);
  free(buf);
  mbt_tree_free(t);
}

/* Every identity of the header on tree t with armature arm. */
static void identities(mbt_tree *t, const double *arm, uint64_t seed) {
  const mb_model *m0 = &t->model;
  mb_model ma = *m0;
  ma.armature = arm;
  int nv = m0->nv;
  assert_true(nv <= NV_MAX);
  mb_workspace ws0, ws; /* a workspace belongs to one model */
  double *buf0 = mbt_workspace_new(m0, &ws0), *buf = mbt_workspace_new(&ma, &ws);
  static double M0[NV_MAX * NV_MAX], M[NV_MAX * NV_MAX], Mi[NV_MAX * NV_MAX], Md[NV_MAX * NV_MAX],
      dq[NV_MAX * NV_MAX], dv[NV_MAX * NV_MAX];
  double q[7 * NV_MAX], v[NV_MAX], a[NV_MAX], tau0[NV_MAX], tau[NV_MAX], qdd[NV_MAX],
      qdd2[NV_MAX], e[2], Mv[NV_MAX];
  mbt_rng g;
  mbt_rng_seed(&g, seed);
  mbt_rand_q(&g, m0, q), mbt_rand_vec(&g, nv, -1, 1, v), mbt_rand_vec(&g, nv, -1, 1, a);
  assert_int_equal(mb_model_check(&ma, NULL, 0), 0);
  assert_int_equal(mb_crba(m0, &ws0, q, M0), MB_OK);
  assert_int_equal(mb_crba(&ma, &ws, q, M), MB_OK);
  for (int k = 0; k < nv * nv; k++) M0[k] += k % (nv + 1) == 0 ? arm[k / (nv + 1)] : 0.0;
  MBT_ASSERT_REL(M, M0, nv * nv, 1e-14);
  assert_int_equal(mb_rnea(m0, &ws0, q, v, a, NULL, tau0), MB_OK);
  assert_int_equal(mb_rnea(&ma, &ws, q, v, a, NULL, tau), MB_OK);
  for (int k = 0; k < nv; k++) tau0[k] += arm[k] * a[k];
  MBT_ASSERT_REL(tau, tau0, nv, 1e-13);
  assert_int_equal(mb_aba(&ma, &ws, q, v, tau, NULL, qdd), MB_OK);
  MBT_ASSERT_REL(qdd, a, nv, 1e-9);
  assert_int_equal(mb_crba_fd(&ma, &ws, q, v, tau, qdd2), MB_OK);
  MBT_ASSERT_REL(qdd2, a, nv, 1e-9);
  assert_int_equal(mb_minv(&ma, &ws, q, Mi), MB_OK);
  for (int r = 0; r < nv; r++) /* Minv M = 1 */
    for (int c = 0; c < nv; c++) {
      double s = 0.0;
      for (int k = 0; k < nv; k++) s += Mi[r * nv + k] * M[k * nv + c];
      MBT_ASSERT_NEAR1(s, r == c ? 1.0 : 0.0, 1e-9);
    }
  if (!m0->flex) { /* neither is defined with modes (mb.h) */
    assert_int_equal(mb_rnea_derivatives(&ma, &ws, q, v, a, dq, dv, Md), MB_OK);
    MBT_ASSERT_REL(Md, M, nv * nv, 1e-12);
    assert_int_equal(mb_energy(&ma, &ws, q, v, e), MB_OK);
    double T = 0.0;
    for (int r = 0; r < nv; r++) {
      Mv[r] = 0.0;
      for (int c = 0; c < nv; c++) Mv[r] += M[r * nv + c] * v[c];
      T += 0.5 * v[r] * Mv[r];
    }
    MBT_ASSERT_NEAR1(e[0], T, 1e-12 * (1 + fabs(T)));
  }
  double wrench[6 * (NV_MAX + 1)];
  if (!ma.flex) assert_int_equal(mb_cfa(&ma, &ws, q, v, tau, qdd, wrench), MB_EINVAL);
  free(buf), free(buf0);
}

/* The models of tests/jprops/ as the generator builds them: their armature against the same
 * model without it. */
static void test_jprops_models(void **state) {
  (void)state;
  static const char *const files[] = {"tests/jprops/quadruped_jp.mbd",
                                      "tests/jprops/five_bar_jp.mbd",
                                      "tests/jprops/flexible_arm_jp.mbd"};
  for (int k = 0; k < 3; k++) {
    mbt_robot r;
    mbt_robot_open(&r, files[k], 0);
    assert_non_null(r.rt.model.armature);
    mbt_tree t; /* identities() reads the model through a tree: the robot's, without armature */
    memset(&t, 0, sizeof t);
    t.model = r.rt.model;
    t.model.armature = NULL;
    identities(&t, r.rt.model.armature, 40 + (uint64_t)k);
    mbt_robot_close(&r);
  }
}

static void test_random_trees(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 8; seed++) {
    mbt_tree *t = mbt_randtree(seed, 3 + (int)seed, (int)(seed % 2));
    double arm[NV_MAX];
    mbt_rng g;
    mbt_rng_seed(&g, 100 + seed);
    for (int k = 0; k < t->model.nv; k++) arm[k] = k % 3 == 1 ? 0.0 : mbt_uniform(&g, 0.0, 0.5);
    identities(t, arm, seed);
    mbt_tree_free(t);
  }
}

static void test_refused(void **state) {
  (void)state;
  mbt_tree *t = mbt_randtree(3, 4, 0);
  double arm[NV_MAX] = {0};
  arm[0] = -1.0; /* negative: not a rotor */
  mb_model ma = t->model;
  ma.armature = arm;
  char why[120];
  assert_int_equal(mb_model_check(&ma, why, sizeof why), -1);
  assert_non_null(strstr(why, "armature"));
  arm[0] = 0.0; /* all zero: as none */
  assert_int_equal(mb_model_check(&ma, NULL, 0), 0);
  assert_int_equal(mb_has_armature(&ma), 0);
  mbt_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum),
      cmocka_unit_test(test_random_trees),
      cmocka_unit_test(test_jprops_models),
      cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
